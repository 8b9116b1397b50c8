/**
 * Whether a language code counts as English: English itself, a regional English, or unknown
 * (unknown text is not sent to translation, so its English text is its text). Ingest decides by
 * this which chunks get an English translation, and the KB which chunks have an original-language
 * text of their own; the two must agree, hence one definition with its SQL twin.
 */
export function isEnglish(code: string | null | undefined): boolean {
  return !code || code === 'en' || code.startsWith('en-') || code === 'und';
}

/**
 * {@link isEnglish} negated, as an SQL condition on the column `column` (used verbatim by a partial
 * index and the queries it serves, so SQLite can match them).
 */
export function sqlNotEnglish(column: string): string {
  return `(${column} IS NOT NULL AND ${column} <> '' AND ${column} <> 'en' AND ${column} <> 'und' AND substr(${column}, 1, 3) <> 'en-')`;
}
