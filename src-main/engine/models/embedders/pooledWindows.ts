import { l2Normalise } from './l2Normalise.js';

/**
 * Texts longer than an embedding model's window (512 tokens for e5) are embedded in consecutive
 * windows of their tokens, and the windows' vectors averaged, weighted by their token counts:
 * truncation would embed only a long passage's start (the vector baseline's 1,000-token passages
 * lost half their text), and an inference server refuses such a text outright.
 */

/** `tokens` cut into consecutive windows of at most `size` (at least one window, maybe empty). */
export function tokenWindows<T>(tokens: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new RangeError(`tokenWindows: window size must be at least 1 (got ${size})`);
  const windows: T[][] = [];
  for (let i = 0; i < tokens.length; i += size) windows.push(tokens.slice(i, i + size));
  return windows.length > 0 ? windows : [[]];
}

/** The token-weighted mean of the windows' vectors, L2-normalised when the model's vectors are. */
export function poolWindowVectors(
  vectors: readonly Float32Array[],
  weights: readonly number[],
  normalise: boolean,
): Float32Array {
  const first = vectors[0];
  if (!first || vectors.length !== weights.length) {
    throw new RangeError('poolWindowVectors: one weight per window vector, at least one window');
  }
  if (vectors.length === 1) return first;
  const pooled = new Float32Array(first.length);
  let total = 0;
  vectors.forEach((v, i) => {
    const w = weights[i] as number;
    total += w;
    for (let k = 0; k < pooled.length; k++) pooled[k] = (pooled[k] as number) + w * (v[k] as number);
  });
  for (let k = 0; k < pooled.length; k++) pooled[k] = (pooled[k] as number) / Math.max(total, 1);
  return normalise ? l2Normalise(pooled) : pooled;
}
