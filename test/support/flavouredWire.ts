import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerFlavour } from './flavouredServer.js';

/** What the inference-server doubles (flavouredServer.ts) share on the wire: the toy tokenizer, bodies, errors. */

/**
 * The double's tokens, as a real vocabulary cuts each script: a Latin word (digits and `_`
 * included) is one token; every Han character is one (BERT's WordPiece splits each off,
 * google-research/bert tokenization.py `_tokenize_chinese_chars`), and kana and Hangul are taken
 * alike here; words of other scripts (Cyrillic, Greek,
 * Arabic…) go in pieces of two letters, as a vocabulary with few merges for them cuts them; every
 * other mark is a token.
 */
export const TOY_TOKEN =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]|[\p{sc=Latin}\p{N}_]+|\p{L}{1,2}|[^\s\p{L}\p{N}_]/gu;

export function toyTokens(text: string): string[] {
  return text.match(TOY_TOKEN) ?? [];
}

/** Tokens an embedding input takes: its text and the model's two special tokens ([CLS], [SEP]). */
export const embeddingInputTokens = (text: string): number => toyTokens(text).length + 2;

export function modelCard(flavour: ServerFlavour, id: string, context: number): Record<string, unknown> {
  if (flavour === 'vllm')
    return { id, object: 'model', created: 0, owned_by: 'vllm', root: id, max_model_len: context };
  if (flavour === 'llama-server')
    return { id, object: 'model', created: 0, owned_by: 'llamacpp', meta: { n_ctx_train: context } };
  return { id, object: 'model', created: 0, owned_by: flavour === 'ollama' ? 'library' : 'organization_owner' };
}

export function vllmError(message: string): unknown {
  return { error: { message, type: 'BadRequestError', param: 'input_tokens', code: 400 } };
}

export function notFound(flavour: ServerFlavour, what: string): unknown {
  return flavour === 'ollama'
    ? '404 page not found'
    : { error: { message: `no route ${what}`, type: 'not_found_error', code: 404 } };
}

export function reply(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' })
    .end(typeof body === 'string' ? body : JSON.stringify(body));
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += String(chunk);
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}
