import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0013_partial_triples', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('keeps existing partial summaries, with no triples known (they cite their entity until reduced again)', () => {
    migrate(db, ':memory:', 8);
    db.exec(`
      INSERT INTO entities (id, name, name_key, type) VALUES (1, 'Odysseus', 'odysseus', 'Person');
      INSERT INTO entity_partials (id, entity_id, ord, first_fact, last_fact, fact_count, text) VALUES (1, 1, 0, 1, 3, 6, 'He was king.');
    `);
    migrate(db, ':memory:', 13);
    expect(schemaVersion(db)).toBe(13);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(13);
    expect(db.prepare('SELECT text, triple_ids AS tripleIds FROM entity_partials WHERE id = 1').get()).toEqual({
      text: 'He was king.',
      tripleIds: null,
    });
    db.exec(
      `INSERT INTO entity_partials (entity_id, ord, first_fact, last_fact, fact_count, text, triple_ids) VALUES (1, 1, 4, 6, 6, 'He married.', '[4,5,6]')`,
    );
    expect(db.prepare('SELECT triple_ids FROM entity_partials WHERE ord = 1').pluck().get()).toBe('[4,5,6]');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
