import { PolyhopError } from '../../base/errors.js';
import { quantile } from '../../base/quantile.js';
import { Prng } from './Prng.js';

export interface BootstrapOptions {
  /** Resampled datasets. Default: 10,000 (as the MDER-DR paper). */
  samples?: number;
  /** PRNG seed. Default: 1. The same seed and length draw the same resamples, so series over the same questions are resampled together. */
  seed?: number;
}

export interface BootstrapEstimate {
  n: number;
  /** Mean of the observed scores. */
  mean: number;
  /** Mean of the resampled means (the MDER-DR paper's reported figure; tends to `mean`). */
  bootstrapMean: number;
  /** Standard deviation of the resampled means: the standard error. */
  se: number;
}

export interface PairedBootstrapEstimate {
  n: number;
  /** Observed mean of a − b over the paired questions. */
  meanDiff: number;
  /** Standard deviation of the resampled mean differences. */
  se: number;
  /** Two-sided bootstrap p-value of "no difference": twice the smaller tail of the resampled differences at 0. */
  p: number;
  /** Central 95% percentile interval of the resampled differences. */
  ci95: [number, number];
}

export const BOOTSTRAP_DEFAULTS = { samples: 10_000, seed: 1 } as const;

/**
 * Bootstrap mean and standard error of per-question scores: `samples` datasets drawn with
 * replacement, the mean of each, and their mean and standard deviation.
 */
export function bootstrapMean(scores: readonly number[], options: BootstrapOptions = {}): BootstrapEstimate {
  const n = scores.length;
  if (n === 0) return { n, mean: Number.NaN, bootstrapMean: Number.NaN, se: Number.NaN };
  const means = resampledMeans(scores, options);
  return { n, mean: sum(scores) / n, bootstrapMean: sum(means) / means.length, se: stdDev(means) };
}

/**
 * Paired bootstrap of the difference between two strategies scored on the same questions
 * (`a[i]` and `b[i]` belong to question i): resamples questions, not scores, so the question
 * difficulty shared by both cancels out.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions = {},
): PairedBootstrapEstimate {
  if (a.length !== b.length)
    throw new PolyhopError('INVALID_REQUEST', `paired bootstrap needs equal lengths (${a.length} vs ${b.length})`);
  const diffs = a.map((x, i) => x - (b[i] as number));
  const n = diffs.length;
  if (n === 0) return { n, meanDiff: Number.NaN, se: Number.NaN, p: Number.NaN, ci95: [Number.NaN, Number.NaN] };
  const means = resampledMeans(diffs, options);
  const sorted = Float64Array.from(means).sort();
  let below = 0;
  let above = 0;
  for (const m of sorted) {
    if (m <= 0) below++;
    if (m >= 0) above++;
  }
  const k = sorted.length;
  return {
    n,
    meanDiff: sum(diffs) / n,
    se: stdDev(means),
    p: Math.min(1, (2 * Math.min(below, above)) / k),
    ci95: [quantile(sorted, 0.025), quantile(sorted, 0.975)],
  };
}

function resampledMeans(values: readonly number[], options: BootstrapOptions): Float64Array {
  const k = options.samples ?? BOOTSTRAP_DEFAULTS.samples;
  if (!Number.isInteger(k) || k < 2)
    throw new PolyhopError('INVALID_REQUEST', `bootstrap needs at least 2 samples (got ${k})`);
  const prng = new Prng(options.seed ?? BOOTSTRAP_DEFAULTS.seed);
  const n = values.length;
  const data = Float64Array.from(values);
  const means = new Float64Array(k);
  for (let r = 0; r < k; r++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += data[prng.nextInt(n)] as number;
    means[r] = total / n;
  }
  return means;
}

function sum(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] as number;
  return s;
}

/** Sample standard deviation (k − 1). */
function stdDev(values: Float64Array): number {
  const m = sum(values) / values.length;
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return Math.sqrt(ss / (values.length - 1));
}
