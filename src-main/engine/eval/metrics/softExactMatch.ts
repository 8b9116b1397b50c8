import { normaliseAnswer, usesWordSegmenter } from './normalise.js';

/**
 * Soft EM as in MDER-DR: 1 when a normalised expected answer (NFKC, lowercase, punctuation,
 * articles, whitespace) appears within the normalised response, else 0.
 *
 * "Appears" means as whole words: `1` is not found inside `1990`, nor `art` inside `party`. In
 * scripts written without spaces (zh, ja, th…) it is plain containment. An expected answer that
 * normalises to nothing (e.g. only an article) matches nothing.
 */
export function softExactMatch(response: string, expected: readonly string[], language: string): number {
  const segmented = usesWordSegmenter(language);
  const norm = (text: string): string => {
    const s = normaliseAnswer(text, language);
    return segmented ? s.replace(/ /g, '') : ` ${s} `;
  };
  const haystack = norm(response);
  return expected.some((e) => {
    const needle = norm(e);
    return needle.trim() !== '' && haystack.includes(needle);
  })
    ? 1
    : 0;
}
