import type { ServerResponse } from 'node:http';
import type { NgramEmbedder } from './NgramEmbedder.js';
import type { ServerFlavour } from './flavouredServer.js';
import { embeddingInputTokens, reply, toyTokens, vllmError } from './flavouredWire.js';

/** What {@link embedReply} needs of the server it answers for (see FlavouredServerOptions). */
export interface EmbedSetting {
  flavour: ServerFlavour;
  model: string;
  context: number;
  ubatch: number;
  vectors: NgramEmbedder;
  state: { embedded: number[]; truncatedInputs: number; refusals: number };
  /** Silence after the headers and half the body before the rest is sent. Default 0. */
  bodyStallMs?: number;
  /** llama-server's refusals worded as at llama.cpp fb40266, without the counts (see FlavouredServerOptions.plainRefusals). */
  plainRefusals?: boolean;
}

/**
 * A `POST /v1/embeddings` reply as each server gives it, refusals and silent truncation included
 * (the sources are cited at each).
 */
export async function embedReply(
  setting: EmbedSetting,
  body: Record<string, unknown>,
  res: ServerResponse,
): Promise<void> {
  const { flavour, model, context, ubatch, vectors, state } = setting;
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
  const embeddedTexts: string[] = [];
  for (const text of inputs) {
    const n = embeddingInputTokens(text);
    if (flavour === 'llama-server' && n > ubatch) {
      // tools/server/server-context.cpp update_slots(): an embedding cannot be split over ubatches
      // (server_slot::can_split() is false for non-causal pooling, :242-247 at ggml-org/llama.cpp
      // fb40266), so a task over n_ubatch is refused with ERROR_TYPE_SERVER, which the HTTP layer
      // answers 500 (:2044-2049). fb40266 words it without counts; the llama.cpp node-llama-cpp
      // 3.21.1 ships (llama/gitRelease.bundle, server-context.cpp blob f78cfb3, :3168-3178) names both.
      state.refusals++;
      return reply(res, 500, {
        error: {
          code: 500,
          message: setting.plainRefusals
            ? 'input is too large to process. increase the physical batch size'
            : `input (${n} tokens) is too large to process. increase the physical batch size (current batch size: ${ubatch})`,
          type: 'server_error',
        },
      });
    }
    if (flavour === 'llama-server' && n > context) {
      // Same place, next check: ERROR_TYPE_EXCEED_CONTEXT_SIZE (HTTP 400): fb40266 :2051-2055, the bundle's :3180-3189.
      state.refusals++;
      return reply(res, 400, {
        error: {
          code: 400,
          message: setting.plainRefusals
            ? 'input is larger than the max context size. skipping'
            : `input (${n} tokens) is larger than the max context size (${context} tokens). skipping`,
          type: 'exceed_context_size_error',
        },
      });
    }
    if (flavour === 'vllm' && n > context) {
      // vllm/renderers/params.py:333-350 (1aa021e) TokenizeParams._token_len_check (pooling asks 0 output tokens),
      // a VLLMValidationError answered 400.
      state.refusals++;
      return reply(
        res,
        400,
        vllmError(
          `You passed ${n} input tokens and requested 0 output tokens. However, the model's context length is only ${context} tokens, resulting in a maximum input length of ${context} tokens. Please reduce the length of the input prompt.`,
        ),
      );
    }
    if (flavour === 'ollama' && n > context) {
      // The OpenAI layer forwards only model, input and dimensions (middleware/openai.go:427), so
      // `truncate` is unset and EmbedHandler cuts the input to the context (routes.go:923-947).
      state.truncatedInputs++;
      embeddedTexts.push(
        toyTokens(text)
          .slice(0, context - 2)
          .join(' '),
      );
      state.embedded.push(context);
      continue;
    }
    embeddedTexts.push(toyTokens(text).join(' '));
    state.embedded.push(n);
  }
  const out = await vectors.embed(embeddedTexts);
  const tokens = embeddedTexts.reduce((n, t) => n + embeddingInputTokens(t), 0);
  const json = JSON.stringify({
    object: 'list',
    model,
    data: out.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
  res.writeHead(200, { 'content-type': 'application/json' });
  if (!setting.bodyStallMs) return void res.end(json);
  // Headers and half the body, then silence: a server (or a proxy) that started the reply and hung.
  res.write(json.slice(0, json.length >> 1));
  await new Promise((resolve) => setTimeout(resolve, setting.bodyStallMs));
  res.end(json.slice(json.length >> 1));
}
