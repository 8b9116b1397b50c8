import { textTokens } from './normalise.js';
import { ngrams } from './rouge.js';

export interface BleuOptions {
  /** Highest n-gram order, uniformly weighted. Default: 4. */
  maxOrder?: number;
  /**
   * `epsilon`: an order with no matching n-gram counts `epsilon` matches instead of 0 (NLTK's
   * `SmoothingFunction().method1`), so a short correct answer is not zeroed by a missing 4-gram.
   * `none`: plain BLEU (0 when any order has no match). Default: `epsilon`.
   */
  smoothing?: 'epsilon' | 'none';
  /** Default: 0.1 (NLTK's). */
  epsilon?: number;
}

interface BleuCounts {
  matches: number[];
  totals: number[];
  hypothesisLength: number;
  referenceLength: number;
}

/**
 * Sentence BLEU of one response against its reference answers (per-question scores are what
 * the bootstrap resamples): NLTK `sentence_bleu` semantics, i.e. clipped n-gram precision up to
 * `maxOrder`, geometric mean, brevity penalty against the closest reference length (shorter on
 * ties), 0 when no unigram matches. Tokens: {@link textTokens}.
 */
export function bleu(
  candidate: string,
  references: readonly string[],
  language: string,
  options: BleuOptions = {},
): number {
  if (references.length === 0) return 0;
  return sentenceBleu(
    references.map((r) => textTokens(r, language)),
    textTokens(candidate, language),
    options,
  );
}

/** {@link bleu} on tokens. */
export function sentenceBleu(
  references: readonly (readonly string[])[],
  hypothesis: readonly string[],
  options: BleuOptions = {},
): number {
  return score(counts(references, hypothesis, options.maxOrder ?? 4), options);
}

/** Corpus BLEU (NLTK `corpus_bleu`): counts and lengths summed over all sentences before the ratio. */
export function corpusBleu(
  references: readonly (readonly (readonly string[])[])[],
  hypotheses: readonly (readonly string[])[],
  options: BleuOptions = {},
): number {
  const maxOrder = options.maxOrder ?? 4;
  const total: BleuCounts = {
    matches: new Array<number>(maxOrder).fill(0),
    totals: new Array<number>(maxOrder).fill(0),
    hypothesisLength: 0,
    referenceLength: 0,
  };
  hypotheses.forEach((hyp, i) => {
    const c = counts(references[i] ?? [], hyp, maxOrder);
    for (let n = 0; n < maxOrder; n++) {
      total.matches[n]! += c.matches[n] as number;
      total.totals[n]! += c.totals[n] as number;
    }
    total.hypothesisLength += c.hypothesisLength;
    total.referenceLength += c.referenceLength;
  });
  return score(total, options);
}

function counts(
  references: readonly (readonly string[])[],
  hypothesis: readonly string[],
  maxOrder: number,
): BleuCounts {
  const matches: number[] = [];
  const totals: number[] = [];
  for (let n = 1; n <= maxOrder; n++) {
    const maxRef = new Map<string, number>();
    for (const ref of references) {
      const c = countOf(ngrams(ref, n));
      for (const [g, k] of c) maxRef.set(g, Math.max(maxRef.get(g) ?? 0, k));
    }
    const hyp = countOf(ngrams(hypothesis, n));
    let m = 0;
    for (const [g, k] of hyp) m += Math.min(k, maxRef.get(g) ?? 0);
    matches.push(m);
    totals.push(Math.max(1, hypothesis.length - n + 1));
  }
  const c = hypothesis.length;
  let closest = Number.POSITIVE_INFINITY;
  for (const ref of references) {
    const r = ref.length;
    if (Math.abs(r - c) < Math.abs(closest - c) || (Math.abs(r - c) === Math.abs(closest - c) && r < closest))
      closest = r;
  }
  return { matches, totals, hypothesisLength: c, referenceLength: Number.isFinite(closest) ? closest : 0 };
}

function score(c: BleuCounts, options: BleuOptions): number {
  if ((c.matches[0] ?? 0) === 0 || c.hypothesisLength === 0) return 0;
  const epsilon = options.epsilon ?? 0.1;
  let logSum = 0;
  for (let n = 0; n < c.matches.length; n++) {
    let m = c.matches[n] as number;
    if (m === 0) {
      if (options.smoothing === 'none') return 0;
      m = epsilon;
    }
    logSum += Math.log(m / (c.totals[n] as number));
  }
  const bp = c.hypothesisLength > c.referenceLength ? 1 : Math.exp(1 - c.referenceLength / c.hypothesisLength);
  return bp * Math.exp(logSum / c.matches.length);
}

function countOf(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}
