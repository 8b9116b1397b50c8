import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0002_imported_statements', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('upgrades a version-1 database and keeps its rows', () => {
    migrate(db, ':memory:', 1);
    db.exec(`INSERT INTO meta (key, value) VALUES ('name', '"kept"')`);
    migrate(db, ':memory:', 2);
    expect(schemaVersion(db)).toBe(2);
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'name'`).pluck().get()).toBe('"kept"');
    db.prepare('INSERT INTO imported_statements (source, nquads) VALUES (?, ?)').run('g.ttl', '<a> <b> <c> .\n');
    expect(db.prepare('SELECT count(*) FROM imported_statements').pluck().get()).toBe(1);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
