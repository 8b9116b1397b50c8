import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase, insertDocument } from '../../../support/migrationDatabase.js';

describe('migration 0018_document_ocr', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const insertPdf = (path: string) => insertDocument(db, { path, mime: 'application/pdf' });
  const insertRecord = (documentId: number, languages = 'eng') =>
    db.prepare('INSERT INTO document_ocr (document_id, languages) VALUES (?, ?)').run(documentId, languages);
  const insertPage = (documentId: number, page: number, confidence: number, reason = 'no text layer') =>
    db
      .prepare('INSERT INTO document_ocr_pages (document_id, page, confidence, reason) VALUES (?, ?, ?, ?)')
      .run(documentId, page, confidence, reason);
  const pagesOf = (documentId: number) =>
    db.prepare('SELECT page FROM document_ocr_pages WHERE document_id = ? ORDER BY page').pluck().all(documentId);

  it('upgrades a version-17 database: its documents have no OCR record until re-indexed', () => {
    migrate(db, ':memory:', 17);
    const old = insertPdf('/data/old.pdf');
    migrate(db, ':memory:', 18);
    expect(schemaVersion(db)).toBe(18);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(18);
    expect(db.prepare('SELECT COUNT(*) FROM document_ocr').pluck().get()).toBe(0);
    insertRecord(old);
    insertPage(old, 1, 82);
    expect(pagesOf(old)).toEqual([1]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a page belongs to a record of an existing document, once per number, with a confidence and a known reason, and goes with its document', () => {
    migrate(db, ':memory:');
    const id = insertPdf('/data/scan.pdf');
    expect(() => insertRecord(9999)).toThrow(/FOREIGN KEY/);
    expect(() => insertPage(id, 1, 80)).toThrow(/FOREIGN KEY/); // no record yet
    expect(() => insertRecord(id, '')).toThrow(/CHECK/);
    insertRecord(id, 'eng+ita');
    insertPage(id, 1, 82);
    insertPage(id, 3, 41, 'unreadable text');
    expect(() => insertPage(id, 3, 41)).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(() => insertPage(id, 0, 50)).toThrow(/CHECK/);
    expect(() => insertPage(id, 4, 101)).toThrow(/CHECK/);
    expect(() => insertPage(id, 4, 50, 'guessed')).toThrow(/CHECK/);
    db.prepare('DELETE FROM documents WHERE id = ?').run(id);
    expect(pagesOf(id)).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM document_ocr').pluck().get()).toBe(0);
  });
});
