import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';

/**
 * The migration tests' database: before each test of the calling `describe`, a fresh in-memory
 * SQLite with foreign keys on (as a KB is opened), handed to `use`; closed after the test.
 *
 * @example
 * let db: Database.Database;
 * eachMemoryDatabase((opened) => (db = opened));
 */
export function eachMemoryDatabase(use: (db: Database.Database) => void): void {
  let db: Database.Database | undefined;
  beforeEach(() => {
    db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    use(db);
  });
  afterEach(() => db?.close());
}

/** Adds a document row (only the columns every schema has) and returns its id. */
export function insertDocument(
  db: Database.Database,
  { path, title = 't', hash = 'h', mime = 'text/plain', status = 'indexed' }: DocumentRow,
): number {
  return Number(
    db
      .prepare(
        `INSERT INTO documents (path, title, hash, mime, size, status, added_at) VALUES (?, ?, ?, ?, 1, ?, 'now')`,
      )
      .run(path, title, hash, mime, status).lastInsertRowid,
  );
}

export interface DocumentRow {
  path: string;
  /** Default `t`. */
  title?: string;
  /** Default `h`. */
  hash?: string;
  /** Default `text/plain`. */
  mime?: string;
  /** Default `indexed`. */
  status?: 'pending' | 'indexed';
}

/** From v14 on: document 1 with one chunk (1), its vector (1.0) and its code (`01000000`). */
export function insertChunkWithCode(db: Database.Database): void {
  db.exec(`
    INSERT INTO documents (id, path, title, hash, mime, size, status, added_at) VALUES (1, '/a', 'a', 'h', 'text/plain', 1, 'indexed', '2026-01-01');
    INSERT INTO chunks (id, document_id, ord, text, language, start_offset, end_offset) VALUES (1, 1, 0, 'x', 'en', 0, 1);
    INSERT INTO vec_chunk (id, vector) VALUES (1, x'0000803f');
    INSERT INTO vcode_chunk (id, code) VALUES (1, x'01000000');
  `);
}
