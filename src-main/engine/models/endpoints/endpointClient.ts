import OpenAI from 'openai';
import type { EndpointConfig } from './EndpointConfig.js';
import { EndpointStall } from './endpointErrors.js';
import { fetchWithReadableErrors } from './errorBody.js';

/** Silence after a reply has started (between two chunks of its body) before a call counts as stalled. Default. */
export const DEFAULT_STALL_MS = 120_000;

/**
 * Time to a reply's first byte (its headers) before a call counts as stalled. Long, since waiting
 * is not a stall: a busy server holds a call in its queue until a slot frees (Ollama runs one at a
 * time by default) and reads the whole input before it answers. Default.
 */
export const DEFAULT_FIRST_BYTE_MS = 600_000;

/**
 * The official client for one endpoint. It never retries on its own (`maxRetries: 0`): the pool
 * decides where a failed call goes next. Servers without authentication ignore the placeholder key.
 */
export function endpointClient(config: EndpointConfig, timeoutMs: number = DEFAULT_STALL_MS): OpenAI {
  return new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? 'no-key',
    maxRetries: 0,
    timeout: timeoutMs,
    fetch: fetchWithReadableErrors,
  });
}

/**
 * The server's root for llama-server's own routes (`/props`, `/tokenize`), which sit beside the
 * OpenAI API rather than under `/v1`.
 */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * Runs `request` with a signal of its own that follows `signal`. The client adds an abort
 * listener to the signal of every request and never removes it, so handing it a job's long-lived
 * signal would pile up one listener per call for the whole job.
 */
export async function withCallSignal<T>(
  signal: AbortSignal | undefined,
  request: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!signal) return request(undefined);
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener('abort', follow);
  }
}

/**
 * The body of a reply whose headers have come, as text; an {@link EndpointStall} when no chunk of it
 * comes for `stallMs` (the server started the reply, then went quiet). The wait before the headers
 * is the caller's, under the first-byte limit.
 */
export async function readBodyWithin(response: Response, stallMs: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const quiet = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new EndpointStall(`no data for ${stallMs} ms after the reply started`)), stallMs);
    });
    try {
      const { done, value } = await Promise.race([reader.read(), quiet]);
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    } catch (error) {
      void reader.cancel().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
