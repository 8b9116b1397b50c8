import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { asCancelled } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import { allowedRedirect } from './ModelCatalog.js';

export interface DownloadProgress {
  downloadedBytes: number;
  /** 0 when the server does not say. */
  totalBytes: number;
}

export interface DownloadFileOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  /** How long to wait for the server to answer. Default 15 s. */
  connectTimeoutMs?: number;
}

/** Redirects followed per request (Hugging Face uses one). */
const MAX_REDIRECTS = 5;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Downloads `url` to `dest` through `dest.part`, resuming a previous partial download with an
 * HTTP Range request; the file appears under its name only when complete. Redirects are followed
 * one by one, each checked by {@link allowedRedirect} before it is. Unreachable hosts fail within
 * `connectTimeoutMs`, saying the machine looks offline.
 */
export async function downloadFile(url: string, dest: string, options: DownloadFileOptions = {}): Promise<void> {
  const part = `${dest}.part`;
  await mkdir(dirname(dest), { recursive: true });
  const have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const response = await request(
    url,
    { method: 'GET', ...(have > 0 ? { headers: { range: `bytes=${have}-` } } : {}) },
    options,
  );
  const resumed = response.status === 206;
  if (!response.ok || !response.body)
    throw new PolyhopError('MODEL_ERROR', `Download of ${url} failed: HTTP ${response.status}`, {
      details: { url, status: response.status },
    });
  const start = resumed ? have : 0;
  const length = Number(response.headers.get('content-length') ?? 0);
  const total = length > 0 ? start + length : 0;
  let downloaded = start;
  const body = Readable.fromWeb(response.body as ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    downloaded += chunk.length;
    options.onProgress?.({ downloadedBytes: downloaded, totalBytes: total });
  });
  try {
    await pipeline(
      body,
      createWriteStream(part, { flags: resumed ? 'a' : 'w' }),
      ...(options.signal ? [{ signal: options.signal }] : []),
    );
  } catch (error) {
    if (options.signal?.aborted) throw asCancelled(options.signal.reason);
    throw networkError(url, error);
  }
  if (total > 0 && downloaded !== total)
    throw new PolyhopError(
      'MODEL_ERROR',
      `Download of ${url} ended at ${downloaded} of ${total} bytes; run it again to resume`,
      { details: { url } },
    );
  await rename(part, dest);
}

async function request(url: string, init: RequestInit, options: DownloadFileOptions): Promise<Response> {
  let current = url;
  for (let hop = 0; ; hop++) {
    // The timeout covers waiting for the answer's headers; the body then streams at its own pace.
    const timeout = AbortSignal.timeout(options.connectTimeoutMs ?? 15_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(current, { ...init, redirect: 'manual', signal });
    } catch (error) {
      if (options.signal?.aborted) throw asCancelled(options.signal.reason);
      throw networkError(current, error);
    }
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (location === null) return response;
    await response.body?.cancel();
    if (hop === MAX_REDIRECTS)
      throw new PolyhopError('MODEL_ERROR', `Download of ${url} failed: more than ${MAX_REDIRECTS} redirects`, {
        details: { url },
      });
    current = allowedRedirect(current, location);
  }
}

function networkError(url: string, error: unknown): PolyhopError {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  const code = cause?.code ?? (error instanceof Error && error.name === 'TimeoutError' ? 'ETIMEDOUT' : undefined);
  const offline = code !== undefined && NETWORK_CODES.has(code);
  const message = offline
    ? `Cannot reach ${new URL(url).host} (${code}): this machine looks offline. Download the model on a connected machine and import the file instead.`
    : `Download of ${url} failed: ${error instanceof Error ? error.message : String(error)}`;
  return new PolyhopError('UNSUPPORTED', message, { details: { url, offline, code }, cause: error });
}
