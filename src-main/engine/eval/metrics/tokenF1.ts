import { yesNoMismatch } from './answerScript.js';
import type { LexicalMetricOptions } from './exactMatch.js';
import { answerTokens, squadTokens } from './normalise.js';

export interface OverlapScore {
  precision: number;
  recall: number;
  f1: number;
}

export const ZERO_OVERLAP: OverlapScore = Object.freeze({ precision: 0, recall: 0, f1: 0 });
const FULL_OVERLAP: OverlapScore = Object.freeze({ precision: 1, recall: 1, f1: 1 });

/**
 * Token F1 (bag-of-tokens overlap after normalisation), the best over the gold answers, with
 * the edge rules of `options.script` (see {@link AnswerScript}): no shared token scores 0; the
 * HotpotQA/2Wiki yes/no rule; MuSiQue's "both empty is 1".
 */
export function tokenF1(
  prediction: string,
  golds: readonly string[],
  options: LexicalMetricOptions = {},
): OverlapScore {
  const script = options.script ?? 'squad';
  const tokens = (text: string): string[] =>
    options.language === undefined ? squadTokens(text) : answerTokens(text, options.language);
  const predicted = tokens(prediction);
  let best = ZERO_OVERLAP;
  for (const gold of golds) {
    const expected = tokens(gold);
    let score: OverlapScore;
    if (yesNoMismatch(script, predicted.join(' '), expected.join(' '))) score = ZERO_OVERLAP;
    else if (script === 'musique' && (predicted.length === 0 || expected.length === 0))
      score = predicted.length === expected.length ? FULL_OVERLAP : ZERO_OVERLAP;
    else score = overlap(predicted, expected);
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
