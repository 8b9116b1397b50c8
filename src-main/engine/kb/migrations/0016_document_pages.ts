import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * The pages of paged documents (PDF, multi-page TIFF), kept at indexing: each page's text and its
 * span `[start_offset, end_offset)` in the document's text, so that a citation into page 437 of a
 * large PDF is shown without reading and parsing the whole file again. Other formats have no rows;
 * documents indexed before this version have none either until re-indexed, and are read again.
 */
export const migration0016: Migration = {
  version: 16,
  name: 'document_pages',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE document_pages (
        document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        page INTEGER NOT NULL CHECK (page >= 1),
        start_offset INTEGER NOT NULL CHECK (start_offset >= 0),
        end_offset INTEGER NOT NULL CHECK (end_offset >= start_offset),
        -- Offsets count UTF-16 code units (JavaScript's), not SQLite's characters: no length check here.
        text TEXT NOT NULL,
        PRIMARY KEY (document_id, page)
      ) WITHOUT ROWID;
    `);
  },
};
