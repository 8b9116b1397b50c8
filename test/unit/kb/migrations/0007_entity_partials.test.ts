import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0007_entity_partials', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('upgrades a version-6 database with an empty partial-summary table and vector family that go with their entity', () => {
    migrate(db, ':memory:', 6);
    db.exec(`INSERT INTO entities (id, name, name_key, type) VALUES (1, 'Odysseus', 'odysseus', 'Person')`);
    migrate(db, ':memory:', 7);
    expect(schemaVersion(db)).toBe(7);
    expect(db.prepare('SELECT name FROM entities WHERE id = 1').pluck().get()).toBe('Odysseus');
    expect(db.prepare('SELECT COUNT(*) FROM entity_partials').pluck().get()).toBe(0);
    expect(db.prepare(`SELECT generation FROM vector_state WHERE kind = 'entity_partial'`).pluck().get()).toBe(0);
    db.exec(`
      INSERT INTO entity_partials (id, entity_id, ord, first_fact, last_fact, fact_count, text) VALUES (1, 1, 0, 1, 3, 6, 'He was king.');
      INSERT INTO vec_entity_partial (id, vector) VALUES (1, x'00');
      INSERT INTO vcode_entity_partial (id, code) VALUES (1, x'00');
    `);
    expect(() =>
      db.exec(
        `INSERT INTO entity_partials (entity_id, ord, first_fact, last_fact, fact_count, text) VALUES (1, 0, 4, 6, 6, 'dup')`,
      ),
    ).toThrow(/UNIQUE/);
    db.exec('DELETE FROM entities WHERE id = 1');
    for (const table of ['entity_partials', 'vec_entity_partial', 'vcode_entity_partial'])
      expect(db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(), table).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
