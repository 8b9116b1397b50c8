import { throwIfAborted } from '../../base/abort.js';

/**
 * Runs `embedBatch` over consecutive slices of `texts` of at most `batchSize`, checking `signal`
 * before each slice so a cancel stops within one batch, and returns the vectors in input order.
 */
export async function embedInBatches(
  texts: readonly string[],
  batchSize: number,
  signal: AbortSignal | undefined,
  embedBatch: (batch: readonly string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    throwIfAborted(signal);
    out.push(...(await embedBatch(texts.slice(start, start + batchSize))));
  }
  throwIfAborted(signal);
  return out;
}
