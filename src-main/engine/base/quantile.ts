/**
 * The `q`-quantile (0 ≤ q ≤ 1) of ascending `sorted` values, linearly interpolated between the two
 * nearest ranks (NumPy's default). NaN for no values.
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const at = Math.min(1, Math.max(0, q)) * (n - 1);
  const lo = Math.floor(at);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** {@link quantile} of values in any order (sorts a copy). `quantileOf(xs, 0.5)` is the median. */
export function quantileOf(values: Iterable<number>, q: number): number {
  return quantile(Float64Array.from(values).sort(), q);
}
