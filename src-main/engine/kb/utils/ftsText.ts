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

/** Text as it is stored in an FTS5 column. */
export function ftsDocument(text: string): string {
  return segmentWords(text).join(' ');
}

/**
 * A user's text as an FTS5 query matching any of its words: each word becomes a quoted string
 * (quotes doubled), so operators, column filters, parentheses or NEAR in the text are inert.
 * Returns null when the text has no words. `prefix` makes every word a prefix query.
 *
 * ftsQuery('capital OR "x" NEAR(a)') === '"capital" OR "or" OR "x" OR "near" OR "a"'
 */
export function ftsQuery(text: string, options: { prefix?: boolean } = {}): string | null {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const word of segmentWords(text)) {
    const key = word.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(`"${key.replaceAll('"', '""')}"${options.prefix ? '*' : ''}`);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms.length > 0 ? terms.join(' OR ') : null;
}
