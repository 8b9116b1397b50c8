import OpenAI from 'openai';
import type { EndpointConfig } from './EndpointConfig.js';
import { fetchWithReadableErrors } from './errorBody.js';

/** Time to the response headers, and between two streamed chunks, before a call counts as stalled. Default. */
export const DEFAULT_STALL_MS = 120_000;

/**
 * The official client for one endpoint. It never retries on its own (`maxRetries: 0`): the pool
 * decides where a failed call goes next. Servers without authentication ignore the placeholder key.
 */
export function endpointClient(config: EndpointConfig, timeoutMs: number = DEFAULT_STALL_MS): OpenAI {
  return new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey ?? 'no-key', maxRetries: 0, timeout: timeoutMs, fetch: fetchWithReadableErrors });
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
export async function withCallSignal<T>(signal: AbortSignal | undefined, request: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
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
