/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping input order.
 * Used to spread independent LLM calls of one stage over the model's parallel sequences.
 */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await yieldToEventLoop();
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
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
