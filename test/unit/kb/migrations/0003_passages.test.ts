import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0003_passages', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('upgrades a version-2 database, keeps its rows and adds the passage vector family', () => {
    migrate(db, ':memory:', 2);
    db.exec(`
      INSERT INTO documents (id, path, title, hash, mime, size, status, added_at) VALUES (1, '/a', 'a', 'h', 't', 1, 'indexed', 'now');
      INSERT INTO chunks (id, document_id, ord, text, start_offset, end_offset) VALUES (10, 1, 0, 'x', 0, 1);
      UPDATE vector_state SET generation = 7 WHERE kind = 'chunk';
    `);
    migrate(db, ':memory:', 3);
    expect(schemaVersion(db)).toBe(3);
    expect(db.prepare('SELECT text FROM chunks WHERE id = 10').pluck().get()).toBe('x');
    expect(db.prepare('SELECT kind, generation FROM vector_state ORDER BY kind').raw().all()).toEqual([
      ['chunk', 7],
      ['entity_name', 0],
      ['entity_summary', 0],
      ['passage', 0],
      ['triple', 0],
    ]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('keeps passages unique per document and order, and removes them and their vectors with their document', () => {
    migrate(db, ':memory:', 3);
    db.exec(`
      INSERT INTO documents (id, path, title, hash, mime, size, status, added_at) VALUES (1, '/a', 'a', 'h', 't', 1, 'indexed', 'now');
      INSERT INTO passages (document_id, ord, text, start_offset, end_offset, page) VALUES (1, 0, 'abc', 0, 3, 1), (1, 1, 'cde', 2, 5, NULL);
      INSERT INTO vec_passage (id, vector) VALUES (1, x'00'), (2, x'00');
      INSERT INTO vcode_passage (id, code) VALUES (1, x'00'), (2, x'00');
    `);
    expect(() =>
      db.exec(`INSERT INTO passages (document_id, ord, text, start_offset, end_offset) VALUES (1, 1, 'dup', 0, 1)`),
    ).toThrow(/UNIQUE/);
    expect(() =>
      db.exec(`INSERT INTO passages (document_id, ord, text, start_offset, end_offset) VALUES (2, 0, 'x', 0, 1)`),
    ).toThrow(/FOREIGN KEY/);
    db.exec('DELETE FROM documents WHERE id = 1');
    for (const table of ['passages', 'vec_passage', 'vcode_passage'])
      expect(db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get()).toBe(0);
    // AUTOINCREMENT: a new passage never takes a deleted one's id (a cited passage cannot change meaning).
    db.exec(`INSERT INTO documents (id, path, title, hash, mime, size, status, added_at) VALUES (2, '/b', 'b', 'h', 't', 1, 'indexed', 'now');
             INSERT INTO passages (document_id, ord, text, start_offset, end_offset) VALUES (2, 0, 'x', 0, 1);`);
    expect(db.prepare('SELECT id FROM passages').pluck().get()).toBe(3);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });
});
