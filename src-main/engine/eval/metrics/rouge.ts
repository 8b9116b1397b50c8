import { textTokens } from './normalise.js';
import { overlap, prf, ZERO_OVERLAP, type OverlapScore } from './tokenF1.js';

export interface RougeScores {
  rouge1: OverlapScore;
  rouge2: OverlapScore;
  rougeL: OverlapScore;
}

/**
 * ROUGE-1, ROUGE-2 and ROUGE-L (sentence-level LCS) precision, recall and F1 of a response
 * against reference answers, as Google's `rouge-score` (no stemming), with {@link textTokens}
 * as tokenizer. Over several references each variant takes the one with the best F1.
 */
export function rouge(candidate: string, references: readonly string[], language: string): RougeScores {
  const cand = textTokens(candidate, language);
  const best: RougeScores = { rouge1: ZERO_OVERLAP, rouge2: ZERO_OVERLAP, rougeL: ZERO_OVERLAP };
  for (const reference of references) {
    const ref = textTokens(reference, language);
    const scores: RougeScores = {
      rouge1: rougeN(cand, ref, 1),
      rouge2: rougeN(cand, ref, 2),
      rougeL: rougeL(cand, ref),
    };
    for (const key of ['rouge1', 'rouge2', 'rougeL'] as const)
      if (scores[key].f1 > best[key].f1) best[key] = scores[key];
  }
  return best;
}

/** ROUGE-N: clipped n-gram overlap; precision over the candidate's n-grams, recall over the reference's. */
export function rougeN(candidate: readonly string[], reference: readonly string[], n: number): OverlapScore {
  return overlap(ngrams(candidate, n), ngrams(reference, n));
}

/** ROUGE-L: longest common subsequence over candidate and reference lengths. */
export function rougeL(candidate: readonly string[], reference: readonly string[]): OverlapScore {
  return prf(lcsLength(candidate, reference), candidate.length, reference.length);
}

/** n-grams joined by U+0001 (never inside a token), so they compare as strings. */
export function ngrams(tokens: readonly string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= tokens.length; i++) out.push(tokens.slice(i, i + n).join('\u0001'));
  return out;
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Uint32Array(b.length + 1);
  let row = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      row[j] = a[i - 1] === b[j - 1] ? (prev[j - 1] as number) + 1 : Math.max(prev[j] as number, row[j - 1] as number);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length] as number;
}
