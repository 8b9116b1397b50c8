import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SPACE_SEPARATED, ftsDocument, segmentWords } from '../../../src-main/engine/kb/utils/ftsText.js';
import { seededRandom } from '../../support/seededRandom.js';

/** The index terms FTS5 (unicode61 remove_diacritics 2, as the KB's tables) makes of a text, in order. */
function indexTerms(): (text: string) => string {
  const db = new Database(':memory:');
  db.exec(
    "CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE t_terms USING fts5vocab (t, instance);",
  );
  const insert = db.prepare('INSERT INTO t (rowid, text) VALUES (1, ?)');
  const terms = db.prepare('SELECT term FROM t_terms ORDER BY offset').pluck();
  return (text) => {
    db.exec('DELETE FROM t');
    insert.run(text);
    return (terms.all() as string[]).join('|');
  };
}

describe('ftsDocument', () => {
  it('stores Latin-script text as it is only where segmenting it would give the same index terms', () => {
    const termsOf = indexTerms();
    const random = seededRandom(17);
    // Every character the fast path admits (up to U+2FF, past the Latin blocks), so widening it is checked too.
    const alphabet = Array.from({ length: 0x300 }, (_, c) => String.fromCharCode(c)).filter((c) =>
      SPACE_SEPARATED.test(c),
    );
    let stored = 0;
    for (let i = 0; i < 3000; i++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 40) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      const document = ftsDocument(text);
      if (document === text.normalize('NFC')) stored++;
      expect(termsOf(document), JSON.stringify(text)).toBe(termsOf(segmentWords(text).join(' ')));
    }
    expect(stored).toBeGreaterThan(2900); // the fast path was taken, so the comparison meant something
  });

  it('segments text of other scripts (and Latin text mixed with them)', () => {
    expect(ftsDocument('東京は日本の首都です')).toBe(segmentWords('東京は日本の首都です').join(' '));
    expect(ftsDocument('东京是首都, capital')).toBe(segmentWords('东京是首都, capital').join(' '));
    expect(ftsDocument('东京是首都, capital')).not.toBe('东京是首都, capital');
    expect(ftsDocument('x² ½')).toBe(segmentWords('x² ½').join(' '));
  });
});
