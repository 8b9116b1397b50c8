import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Fixed-size passages (1,000 tokens, 200 overlap by default) for the vector-RAG baseline, with
 * their own vector family 'passage' (vec_/vcode_ tables and a vector_state row, as 0001 makes
 * them). Passages are a second, independent cut of a document's text: they never carry
 * provenance, so nothing but their document and their vectors depends on them.
 */
export const migration0003: Migration = {
  version: 3,
  name: 'passages',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE passages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        text TEXT NOT NULL,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL,
        page INTEGER,
        UNIQUE (document_id, ord)
      );
      CREATE TABLE vec_passage (id INTEGER PRIMARY KEY REFERENCES passages (id) ON DELETE CASCADE, vector BLOB NOT NULL);
      CREATE TABLE vcode_passage (id INTEGER PRIMARY KEY REFERENCES passages (id) ON DELETE CASCADE, code BLOB NOT NULL);
      INSERT INTO vector_state (kind, generation) VALUES ('passage', 0);
    `);
  },
};
