/**
 * FTS5's unicode61 tokenizer splits on spaces and punctuation, which leaves Chinese, Japanese and
 * Thai text as one token per run of letters. Both indexed text and queries are therefore split into
 * words by Intl.Segmenter first (ICU's dictionary break iterator) and re-joined with spaces.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Query words beyond this are dropped, so a pasted essay cannot make a huge OR query. */
const MAX_QUERY_TERMS = 64;

export function segmentWords(text: string): string[] {
  const words: string[] = [];
  for (const part of segmenter.segment(text.normalize('NFC'))) if (part.isWordLike) words.push(part.segment);
  return words;
}

/**
 * Text unicode61 already splits as Intl.Segmenter would: ASCII and Latin letters (Latin-1 and
 * Extended-A/B) only. test/unit/kb/ftsText.test.ts checks the two give the same index terms.
 *
 * @internal
 */
export const SPACE_SEPARATED = /^[\t\n\r\x20-\x7e\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]*$/;

/**
 * Text as it is stored in an FTS5 column. Text of {@link SPACE_SEPARATED} characters is stored as it
 * is: segmenting it changes no index term and cost ~25 µs per sentence, the largest CPU cost of
 * writing rows (indexing, RDF import).
 */
export function ftsDocument(text: string): string {
  return SPACE_SEPARATED.test(text) ? text.normalize('NFC') : segmentWords(text).join(' ');
}

/** A user's text as distinct lower-cased words, in order, at most {@link MAX_QUERY_TERMS}. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of segmentWords(text)) {
    terms.add(word.toLowerCase());
    if (terms.size === MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

/**
 * Terms as an FTS5 query matching any of them: each becomes a quoted string (quotes doubled), so
 * operators, column filters, parentheses or NEAR in the text are inert. Null for no terms.
 * `prefix` makes every term a prefix query.
 */
export function matchAny(terms: readonly string[], options: { prefix?: boolean } = {}): string | null {
  return terms.length > 0
    ? terms.map((t) => `"${t.replaceAll('"', '""')}"${options.prefix ? '*' : ''}`).join(' OR ')
    : null;
}

/**
 * A user's text as an FTS5 query matching any of its words (see {@link matchAny}).
 *
 * ftsQuery('capital OR "x" NEAR(a)') === '"capital" OR "or" OR "x" OR "near" OR "a"'
 */
export function ftsQuery(text: string, options: { prefix?: boolean } = {}): string | null {
  return matchAny(queryTerms(text), options);
}

/**
 * The index term a query word becomes under `unicode61 remove_diacritics 2` (case folded,
 * diacritics removed), for looking it up in an fts5vocab table. A word the tokenizer would split
 * (apostrophes, dots) finds no term; {@link indexTerms} gives its parts.
 */
export function indexTerm(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The index terms a query word becomes: {@link indexTerm}, split where unicode61 splits (outside letters, digits and private use). */
export function indexTerms(word: string): string[] {
  return indexTerm(word)
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter((t) => t.length > 0);
}
