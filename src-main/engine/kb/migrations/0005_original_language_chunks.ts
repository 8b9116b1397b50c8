import type { Database } from 'better-sqlite3';
import { sqlNotEnglish } from '../../base/englishLanguage.js';
import { englishCorpusText } from '../chunkCorpora.js';
import { ftsDocument } from '../utils/ftsText.js';
import type { Migration } from './Migration.js';

/**
 * The original-language corpus beside the English one (DaPT's two corpora; see chunkCorpora.ts):
 * a vector family `chunk_original` (vec_/vcode_ tables and a vector_state row, as 0001 makes them)
 * and an FTS5 table `fts_chunk_original`. `fts_chunk` held original and English text together;
 * it now holds the English text only, and every indexed chunk's text as written moves to
 * `fts_chunk_original` (no model needed). The original-language vectors of non-English chunks
 * need the embedder: the KB reports them missing until the next Index or Re-embed job makes them.
 * The partial index lets that count, and the embedding stage's paging, skip English chunks.
 */
export const migration0005: Migration = {
  version: 5,
  name: 'original_language_chunks',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE vec_chunk_original (id INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE, vector BLOB NOT NULL);
      CREATE TABLE vcode_chunk_original (id INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE, code BLOB NOT NULL);
      INSERT INTO vector_state (kind, generation) VALUES ('chunk_original', 0);
      CREATE VIRTUAL TABLE fts_chunk_original USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      CREATE INDEX chunks_not_english ON chunks (id) WHERE ${sqlNotEnglish('language')};
    `);
    const page = db.prepare(
      `SELECT id, text, language, english_text AS englishText FROM chunks c
       WHERE id > ? AND EXISTS (SELECT 1 FROM fts_chunk WHERE rowid = c.id) ORDER BY id LIMIT 1000`,
    );
    const remove = db.prepare('DELETE FROM fts_chunk WHERE rowid = ?');
    const english = db.prepare('INSERT INTO fts_chunk (rowid, text) VALUES (?, ?)');
    const original = db.prepare('INSERT INTO fts_chunk_original (rowid, text) VALUES (?, ?)');
    // A page at a time: memory stays at one page however many chunks the KB holds.
    for (let after = 0; ;) {
      const rows = page.all(after) as {
        id: number;
        text: string;
        language: string | null;
        englishText: string | null;
      }[];
      if (rows.length === 0) break;
      for (const r of rows) {
        remove.run(r.id);
        english.run(r.id, ftsDocument(englishCorpusText(r)));
        original.run(r.id, ftsDocument(r.text));
      }
      after = (rows[rows.length - 1] as { id: number }).id;
    }
  },
};
