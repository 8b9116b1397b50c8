import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0009_document_parts', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const insert = (path: string, containerId?: number) =>
    Number(
      db
        .prepare(
          `INSERT INTO documents (path, title, hash, mime, size, status, added_at${containerId ? ', container_id' : ''})
           VALUES (?, 't', 'h', 'm', 1, 'pending', 'now'${containerId ? ', ?' : ''})`,
        )
        .run(...(containerId ? [path, containerId] : [path])).lastInsertRowid,
    );

  it('upgrades a version-8 database: its documents are files of their own (no container)', () => {
    migrate(db, ':memory:', 8);
    const kept = insert('/data/a.txt');
    migrate(db, ':memory:', 9);
    expect(schemaVersion(db)).toBe(9);
    expect(db.prepare('SELECT container_id FROM documents WHERE id = ?').pluck().get(kept)).toBeNull();
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a part names an existing container, and a container with parts cannot be deleted raw', () => {
    migrate(db, ':memory:');
    const container = insert('/data/letters.mbox');
    insert('/data/letters.mbox#m1@x', container);
    expect(() => insert('/data/other#m2', 9999)).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare('DELETE FROM documents WHERE id = ?').run(container)).toThrow(/FOREIGN KEY/);
  });
});
