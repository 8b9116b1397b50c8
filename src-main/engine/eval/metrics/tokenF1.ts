import type { LexicalMetricOptions } from './exactMatch.js';
import { answerTokens, squadNormalise } from './normalise.js';

export interface OverlapScore {
  precision: number;
  recall: number;
  f1: number;
}

export const ZERO_OVERLAP: OverlapScore = Object.freeze({ precision: 0, recall: 0, f1: 0 });

/**
 * SQuAD token F1 (bag-of-tokens overlap after normalisation), the best over the gold answers.
 * No shared token, or an answer that normalises to nothing, scores 0 (as SQuAD v1.1).
 */
export function tokenF1(prediction: string, golds: readonly string[], options: LexicalMetricOptions = {}): OverlapScore {
  const tokens = (text: string): string[] => (options.language === undefined ? squadNormalise(text).split(' ').filter(Boolean) : answerTokens(text, options.language));
  const predicted = tokens(prediction);
  let best = ZERO_OVERLAP;
  for (const gold of golds) {
    const score = overlap(predicted, tokens(gold));
    if (score.f1 > best.f1) best = score;
  }
  return best;
}

/** Clipped bag overlap of two token lists: precision over `candidate`, recall over `reference`. */
export function overlap(candidate: readonly string[], reference: readonly string[]): OverlapScore {
  const counts = new Map<string, number>();
  for (const t of reference) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of candidate) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  return prf(same, candidate.length, reference.length);
}

/** Precision, recall and F1 from a match count and the two lengths. */
export function prf(matches: number, candidateLength: number, referenceLength: number): OverlapScore {
  if (matches === 0) return ZERO_OVERLAP;
  const precision = matches / candidateLength;
  const recall = matches / referenceLength;
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}
