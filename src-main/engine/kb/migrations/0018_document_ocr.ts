import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Which pages of a document were read by OCR (scans, pages whose text layer is unreadable, image
 * files), kept at indexing: the languages the OCR recognised, and each such page's confidence and
 * reason, so the Corpus screen can say how far the text is to be trusted. A document without OCR
 * has no rows; documents indexed before this version have none either until re-indexed.
 */
export const migration0018: Migration = {
  version: 18,
  name: 'document_ocr',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE document_ocr (
        document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
        -- Tesseract codes joined by '+', as Tesseract names languages read together (eng+chi_sim).
        languages TEXT NOT NULL CHECK (languages <> '')
      );
      CREATE TABLE document_ocr_pages (
        document_id INTEGER NOT NULL REFERENCES document_ocr (document_id) ON DELETE CASCADE,
        page INTEGER NOT NULL CHECK (page >= 1),
        confidence INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100),
        reason TEXT NOT NULL CHECK (reason IN ('no text layer', 'unreadable text', 'image')),
        PRIMARY KEY (document_id, page)
      ) WITHOUT ROWID;
    `);
  },
};
