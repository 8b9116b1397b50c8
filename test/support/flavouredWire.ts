import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerFlavour } from './flavouredServer.js';

/** What the inference-server doubles (flavouredServer.ts) share on the wire: the toy tokenizer, bodies, errors. */

/** The double's tokenizer: words and punctuation marks. */
export function toyTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
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
