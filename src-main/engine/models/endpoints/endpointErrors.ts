import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { asCancelled } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import type { EndpointConfig } from './EndpointConfig.js';

/** Marks a MODEL_ERROR raised because the endpoint, not the request, failed (the pool retries it elsewhere). */
const ENDPOINT_FAILURE = 'endpointFailure';
/** Marks a MODEL_ERROR raised because the endpoint is busy or still loading: healthy, to be asked again later. */
const ENDPOINT_BUSY = 'endpointBusy';

/** A stream that went quiet past the stall time, or ended without saying why. */
export class EndpointStall extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointStall';
  }
}

/**
 * Whether an error of a call says the endpoint is unwell: unreachable, connection reset or
 * dropped, timed out, HTTP 5xx (but llama-server's 500 for an input past its physical batch, see
 * isPhysicalBatchRefusal), 429 (overloaded) or 408. Any other HTTP status is the request's fault
 * and would fail the same way elsewhere.
 */
function endpointIsAtFault(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (isContextOverflow(error)) return false;
  if (error instanceof APIConnectionError || error instanceof EndpointStall) return true;
  if (isPhysicalBatchRefusal(error)) return false;
  if (error instanceof APIError)
    return error.status === undefined || error.status >= 500 || error.status === 429 || error.status === 408;
  // A body cut mid-read surfaces from fetch as a TypeError ("terminated") or a socket error.
  return (
    error instanceof TypeError ||
    (error instanceof Error && 'code' in error && typeof error.code === 'string' && /^E[A-Z]+/.test(error.code))
  );
}

export function isEndpointFailure(error: unknown): boolean {
  return error instanceof PolyhopError && error.details[ENDPOINT_FAILURE] === true;
}

/**
 * Whether a call failed because the endpoint is busy or not ready yet, so it is to be asked again
 * after a while rather than taken out: HTTP 429, or any 503. A 503 means "unavailable for now"
 * (RFC 9110 §15.6.4) whatever its wording: Ollama's full queue "server busy, please try again.
 * maximum pending requests exceeded" (server/sched.go ErrMaxQueue), llama-server's "Loading model"
 * (tools/server/server-http.cpp middleware_server_state) and its other unavailable replies, a proxy's
 * "Service Unavailable"; matching wordings dropped a healthy server whose words differed.
 */
export function isEndpointBusy(error: unknown): boolean {
  return error instanceof PolyhopError && error.details[ENDPOINT_BUSY] === true;
}

/** The wait a busy endpoint asked for (`Retry-After`), in ms; undefined when it named none. */
export function busyRetryAfterMs(error: unknown): number | undefined {
  const ms = error instanceof PolyhopError ? error.details.retryAfterMs : undefined;
  return typeof ms === 'number' ? ms : undefined;
}

function busyStatus(error: unknown): boolean {
  if (!(error instanceof APIError)) return false;
  if (error.status === 429) return true;
  return error.status === 503;
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110 §10.2.3), in ms from now. */
function retryAfterMs(error: APIError): number | undefined {
  const value = error.headers instanceof Headers ? error.headers.get('retry-after') : null;
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** What an error says, with the endpoint's API key blanked should a server echo it. */
export function redactedMessage(error: unknown, config: EndpointConfig): string {
  const message = error instanceof Error ? error.message : String(error);
  return config.apiKey ? message.split(config.apiKey).join('[api key]') : message;
}

/**
 * A refusal because the prompt (and its budget) does not fit the server's context: llama-server
 * "exceeds the available context size", vLLM "maximum context length", OpenAI's
 * `context_length_exceeded`. The local model says BAD_INPUT for the same, which batched steps
 * answer by asking for fewer items at a time.
 */
function isContextOverflow(error: unknown): boolean {
  if (isPhysicalBatchRefusal(error)) return true;
  // LM Studio may refuse inside the stream (an `error` event: no status).
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== undefined)) return false;
  return error.code === 'context_length_exceeded' || CONTEXT_REFUSAL.test(error.message);
}

/**
 * Overflow wordings: llama-server "exceeds the available context size"; vLLM "maximum context
 * length", "maximum input length", "cannot be greater than max_model_len"; LM Studio "Trying to
 * keep the first N tokens when context the overflows. However, the model is loaded with context
 * length of only M tokens", "The number of tokens to keep from the initial prompt is greater than
 * the context length", "Cannot truncate prompt with n_keep (N) >= n_ctx (M)" (its llama.cpp
 * engine; lmstudio-ai/lmstudio-bug-tracker issues 237, 546).
 */
const CONTEXT_REFUSAL =
  /context (size|length|window)|maximum context|maximum input length|cannot be greater than|context the overflows|n_keep \(\d+\) >= n_ctx/i;

/**
 * llama-server's refusal of an embedding input longer than its physical batch: HTTP 500 "input (N
 * tokens) is too large to process. increase the physical batch size (current batch size: M)"
 * (tools/server/server-context.cpp, update_slots: an embedding cannot be split over ubatches). The
 * request is at fault, not the server: the same input fails on every endpoint, and a shorter one
 * succeeds here.
 */
function isPhysicalBatchRefusal(error: unknown): boolean {
  return error instanceof APIError && error.status === 500 && /too large to process/i.test(error.message);
}

/**
 * The physical batch a refusal that names none is taken to mean: llama-server's default
 * `--ubatch-size` (common/common.h `n_ubatch = 512`). llama.cpp at fb40266 words the refusal
 * without counts ("input is too large to process. increase the physical batch size",
 * tools/server/server-context.cpp:2044-2049); a smaller batch is then found by the estimate's
 * stretch on the next refusal.
 */
const DEFAULT_PHYSICAL_BATCH = 512;

/**
 * The window (tokens one input may take) a refusal names: llama-server's "current batch size: M"
 * and "max context size (M tokens)", vLLM's "maximum input length of M tokens" and "context length
 * is only M tokens", OpenAI's "maximum context length is M tokens". Undefined when it names none.
 */
export function refusedWindow(message: string): number | undefined {
  const found =
    /current batch size:\s*(\d+)/i.exec(message) ??
    /max(?:imum)? context size \((\d+) tokens\)/i.exec(message) ??
    /maximum input length of (\d+) tokens/i.exec(message) ??
    /context length is (?:only )?(\d+) tokens/i.exec(message) ??
    /context length of only (\d+) tokens/i.exec(message) ??
    />= n_ctx \((\d+)\)/i.exec(message);
  const n = found ? Number(found[1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The PolyhopError for a failed call on `config`: CANCELLED when the caller aborted, BAD_INPUT when
 * the prompt does not fit the server's context, a MODEL_ERROR marked as an endpoint failure when
 * the server is at fault, else a MODEL_ERROR for the request.
 */
export function endpointError(
  error: unknown,
  config: EndpointConfig,
  what: string,
  signal?: AbortSignal,
): PolyhopError {
  if (signal?.aborted) return asCancelled(signal.reason);
  if (error instanceof PolyhopError) return error;
  const busy = busyStatus(error);
  const atFault = !busy && endpointIsAtFault(error);
  const overflow = isContextOverflow(error);
  const window =
    (error instanceof Error ? refusedWindow(error.message) : undefined) ??
    (isPhysicalBatchRefusal(error) ? DEFAULT_PHYSICAL_BATCH : undefined);
  const status = error instanceof APIError && error.status !== undefined ? ` (HTTP ${error.status})` : '';
  return new PolyhopError(
    overflow ? 'BAD_INPUT' : 'MODEL_ERROR',
    `${what}: endpoint ${config.id} (${config.baseUrl}) ` +
      `${busy ? 'is busy' : atFault ? 'failed' : 'refused the request'}${status}: ${redactedMessage(error, config)}`,
    {
      details: {
        endpoint: config.id,
        ...(error instanceof APIError && error.status !== undefined ? { status: error.status } : {}),
        ...(overflow && window !== undefined ? { windowTokens: window } : {}),
        [ENDPOINT_FAILURE]: atFault,
        ...(busy
          ? {
              [ENDPOINT_BUSY]: true,
              ...(error instanceof APIError && retryAfterMs(error) !== undefined
                ? { retryAfterMs: retryAfterMs(error) }
                : {}),
            }
          : {}),
      },
    },
  );
}
