import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqlNotEnglish } from '../../../../src-main/engine/base/englishLanguage.js';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0005_original_language_chunks', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const match = (table: string, q: string): number[] =>
    db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck().all(q) as number[];

  it('splits the chunk text index into the English corpus and the text as written, and adds the original-language vector family', () => {
    migrate(db, ':memory:', 4);
    db.exec(`
      INSERT INTO documents (id, path, title, hash, mime, size, language, status, added_at) VALUES (1, '/it.txt', 'it', 'h', 'text/plain', 1, 'it', 'indexed', 'now'), (2, '/en.txt', 'en', 'h2', 'text/plain', 1, 'en', 'indexed', 'now');
      INSERT INTO chunks (id, document_id, ord, text, language, start_offset, end_offset, english_text) VALUES
        (1, 1, 0, 'Penelope tesseva la tela nella reggia.', 'it', 0, 10, 'Penelope wove the shroud in the palace.'),
        (2, 2, 0, 'Telemachus sailed to Pylos.', 'en', 0, 10, 'Telemachus travels by ship to Pylos.'),
        (3, 1, 1, 'Un capitolo non ancora indicizzato.', 'it', 10, 20, NULL);
      -- As 0001's planEmbedding wrote it: original and English text together; chunk 3 was never embedded.
      INSERT INTO fts_chunk (rowid, text) VALUES (1, 'Penelope tesseva la tela nella reggia.
Penelope wove the shroud in the palace.'), (2, 'Telemachus sailed to Pylos.
Telemachus travels by ship to Pylos.');
      INSERT INTO vec_chunk (id, vector) VALUES (1, x'00'), (2, x'00');
      INSERT INTO vcode_chunk (id, code) VALUES (1, x'00'), (2, x'00');
    `);
    migrate(db, ':memory:', 5);
    expect(schemaVersion(db)).toBe(5);
    // The English corpus: the Italian chunk by its translation only; the English chunk by its text and its English text.
    expect(match('fts_chunk', 'tesseva')).toEqual([]);
    expect(match('fts_chunk', 'shroud')).toEqual([1]);
    expect(match('fts_chunk', 'sailed')).toEqual([2]);
    expect(match('fts_chunk', 'travels')).toEqual([2]);
    // The text as written, of every chunk that was indexed.
    expect(match('fts_chunk_original', 'tesseva')).toEqual([1]);
    expect(match('fts_chunk_original', 'shroud')).toEqual([]);
    expect(match('fts_chunk_original', 'sailed')).toEqual([2]);
    expect(match('fts_chunk_original', 'capitolo')).toEqual([]);
    // The new family starts empty with its generation row; its vectors go with their chunk.
    expect(db.prepare('SELECT COUNT(*) FROM vec_chunk_original').pluck().get()).toBe(0);
    expect(db.prepare(`SELECT generation FROM vector_state WHERE kind = 'chunk_original'`).pluck().get()).toBe(0);
    db.exec(`INSERT INTO vec_chunk_original (id, vector) VALUES (1, x'00'); DELETE FROM chunks WHERE id = 1;`);
    expect(db.prepare('SELECT COUNT(*) FROM vec_chunk_original').pluck().get()).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('lets the count of missing original-language vectors read only the non-English chunks', () => {
    migrate(db, ':memory:', 5);
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT COUNT(*) FROM chunks o WHERE ${sqlNotEnglish('o.language')} AND NOT EXISTS (SELECT 1 FROM vec_chunk_original v WHERE v.id = o.id)`,
      )
      .all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/chunks_not_english/);
  });
});
