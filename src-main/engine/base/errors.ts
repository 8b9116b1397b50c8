/**
 * Errors the caller can act on. Every failure that crosses a front door (IPC, HTTP, CLI)
 * is a PolyhopError or becomes one (`INTERNAL`), carried as plain data by {@link toErrorData}.
 */
export type PolyhopErrorCode =
  | 'INVALID_REQUEST' // payload failed its schema at a front door
  | 'NOT_FOUND' // a KB, document, entity, job or model that does not exist
  | 'ALREADY_EXISTS'
  | 'CONFLICT' // e.g. embedder dimension differs from the KB's
  | 'BAD_INPUT' // a document, RDF file, query or model file we cannot use
  | 'MODEL_ERROR' // a model failed to load or generate
  | 'LLM_OUTPUT_INVALID' // structured output failed its schema after retries
  | 'UNSUPPORTED' // feature or format not available on this machine
  | 'NETWORK_BLOCKED' // something tried to reach the network without a user-started download
  | 'TIMEOUT'
  | 'STORAGE_FULL'
  | 'CANCELLED'
  | 'UNAUTHORIZED'
  | 'STORE_ERROR' // an external SPARQL store could not be reached or refused a request
  | 'INTERNAL';

export class PolyhopError extends Error {
  readonly code: PolyhopErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: PolyhopErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'PolyhopError';
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** A user cancel: not an error in logs or UI. */
export class CancelledError extends PolyhopError {
  constructor(message = 'Cancelled') {
    super('CANCELLED', message);
    this.name = 'CancelledError';
  }
}

/** A broken invariant: a bug in Polyhop, never a user mistake. */
export class BugIndicatingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BugIndicatingError';
  }
}

export interface ErrorData {
  code: PolyhopErrorCode;
  message: string;
  details: Record<string, unknown>;
}

export function isCancellation(error: unknown): boolean {
  if (error instanceof PolyhopError) return error.code === 'CANCELLED';
  return error instanceof Error && error.name === 'AbortError';
}

/** Errors cross boundaries as data; unknown ones become INTERNAL with their message kept. */
export function toErrorData(error: unknown): ErrorData {
  if (error instanceof PolyhopError) return { code: error.code, message: error.message, details: error.details };
  if (isCancellation(error)) return { code: 'CANCELLED', message: 'Cancelled', details: {} };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message, details: {} };
}

export function fromErrorData(data: ErrorData): PolyhopError {
  return data.code === 'CANCELLED'
    ? new CancelledError(data.message)
    : new PolyhopError(data.code, data.message, { details: data.details });
}
