import { CancelledError } from './errors.js';

/** Throws a CancelledError when the signal has fired, so loops stop at the next unit of work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw asCancelled(signal.reason);
}

export function asCancelled(reason: unknown): CancelledError {
  if (reason instanceof CancelledError) return reason;
  return new CancelledError(reason instanceof Error ? reason.message : 'Cancelled');
}

/** Rejects with CancelledError as soon as the signal fires; the listener is removed when `promise` settles. */
export async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  throwIfAborted(signal);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(asCancelled(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
