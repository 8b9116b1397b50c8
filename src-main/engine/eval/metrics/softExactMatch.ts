import { normaliseAnswer, stripCitations, usesWordSegmenter, type NormaliseOptions } from './normalise.js';

const PUNCTUATION_MODES: readonly NonNullable<NormaliseOptions['punctuation']>[] = ['delete', 'space'];

/**
 * Soft EM as in MDER-DR §4.4: 1 when a normalised expected answer (NFKC, lowercase,
 * punctuation, articles, whitespace) appears within the normalised response, else 0.
 *
 * "Appears" means as whole words: `1` is not found inside `1990`, nor `art` inside `party`.
 * So that an answer glued to what the product writes around it still counts, citation markers
 * (`[1]`) are removed first, and the test is made twice, each time with both sides normalised
 * the same way: punctuation deleted ("U.S." = "US") and punctuation as a word boundary
 * ("Odysseus's" contains "Odysseus", "Columbus, Ohio." contains "Columbus, Ohio"). In scripts
 * written without spaces (zh, ja, th…) it is plain containment. An expected answer that
 * normalises to nothing (e.g. only an article) matches nothing.
 */
export function softExactMatch(response: string, expected: readonly string[], language: string): number {
  const segmented = usesWordSegmenter(language);
  const norm = (text: string, punctuation: NormaliseOptions['punctuation']): string => {
    const s = normaliseAnswer(stripCitations(text), language, { punctuation });
    return segmented ? s.replace(/ /g, '') : ` ${s} `;
  };
  return PUNCTUATION_MODES.some((mode) => {
    const haystack = norm(response, mode);
    return expected.some((e) => {
      const needle = norm(e, mode);
      return needle.trim() !== '' && haystack.includes(needle);
    });
  })
    ? 1
    : 0;
}
