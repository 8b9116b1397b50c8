import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase, insertDocument } from '../../../support/migrationDatabase.js';

describe('migration 0016_document_pages', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const insertPdf = (path: string) => insertDocument(db, { path, mime: 'application/pdf' });
  const insertPage = (documentId: number, page: number, start: number, end: number, text: string) =>
    db
      .prepare('INSERT INTO document_pages (document_id, page, start_offset, end_offset, text) VALUES (?, ?, ?, ?, ?)')
      .run(documentId, page, start, end, text);
  const pagesOf = (documentId: number) =>
    db.prepare('SELECT page FROM document_pages WHERE document_id = ? ORDER BY page').pluck().all(documentId);

  it('upgrades a version-14 database: its documents keep no pages (citations into them read the file again)', () => {
    migrate(db, ':memory:', 14);
    const old = insertPdf('/data/old.pdf');
    migrate(db, ':memory:', 16);
    expect(schemaVersion(db)).toBe(16);
    expect(pagesOf(old)).toEqual([]);
    insertPage(old, 1, 0, 5, 'Ithaca');
    expect(pagesOf(old)).toEqual([1]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a page belongs to an existing document, once per number, and goes with its document', () => {
    migrate(db, ':memory:');
    const id = insertPdf('/data/ithaca.pdf');
    insertPage(id, 1, 0, 6, 'Ithaca');
    insertPage(id, 2, 8, 16, 'Penelope');
    expect(() => insertPage(id, 2, 8, 16, 'Penelope')).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(() => insertPage(9999, 1, 0, 6, 'Ithaca')).toThrow(/FOREIGN KEY/);
    expect(() => insertPage(id, 0, 0, 6, 'Ithaca')).toThrow(/CHECK/);
    expect(() => insertPage(id, 3, 20, 10, 'x')).toThrow(/CHECK/);
    db.prepare('DELETE FROM documents WHERE id = ?').run(id);
    expect(pagesOf(id)).toEqual([]);
  });
});
