import { asCancelled } from './abort.js';

export interface MapConcurrentOptions {
  /** Stops handing out items, and aborts the signal `fn` receives, when it fires. */
  signal?: AbortSignal;
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping input order.
 * Used to spread independent LLM calls of one stage over the model's parallel sequences.
 *
 * The first call that rejects stops the rest: no item is started after it, and the signal passed
 * to `fn` aborts (its reason is that error) so calls in flight can stop early. It rejects with that
 * first error only once every started call has settled, so nothing of the map still runs (or
 * writes) when the caller learns it failed.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  options: MapConcurrentOptions = {},
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let failure: { error: unknown } | null = null;
  let next = 0;
  let completed = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !signal.aborted) {
      const index = next++;
      try {
        await yieldToEventLoop();
        results[index] = await fn(items[index] as T, index, signal);
        completed++;
      } catch (error) {
        if (!failure) {
          failure = { error };
          stop.abort(error);
        }
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw (failure as { error: unknown }).error;
  // Cancelled by the caller's signal before every item ran.
  if (completed < items.length) throw asCancelled(options.signal?.reason);
  return results;
}

/**
 * Lets timers and I/O run. Work whose awaits all settle at once (cached LLM calls, an in-process
 * model) otherwise runs as one microtask chain that starves the event loop, and every front door
 * freezes until the stage ends.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
