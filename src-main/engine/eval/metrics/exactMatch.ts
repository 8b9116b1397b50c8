import type { AnswerScript } from './answerScript.js';
import { normaliseAnswer, squadNormalise, usesWordSegmenter } from './normalise.js';

export interface LexicalMetricOptions {
  /** The answer's language: selects the language-aware normalisation. Default: none, i.e. SQuAD's English-only one. */
  language?: string;
  /** Whose F1 edge rules apply (yes/no, empty answers). Default: `squad`. EM is the same in all four. */
  script?: AnswerScript;
}

/** 1 when the normalised prediction equals any normalised gold answer, else 0 (every official script). */
export function exactMatch(prediction: string, golds: readonly string[], options: LexicalMetricOptions = {}): number {
  const norm = normaliserFor(options.language);
  const p = norm(prediction);
  return golds.some((g) => norm(g) === p) ? 1 : 0;
}

/** The normaliser for a language (language-aware) or none (SQuAD). Segmented scripts compare without the segmenter's spaces. */
export function normaliserFor(language: string | undefined): (text: string) => string {
  if (language === undefined) return squadNormalise;
  if (usesWordSegmenter(language)) return (text) => normaliseAnswer(text, language).replace(/ /g, '');
  return (text) => normaliseAnswer(text, language);
}
