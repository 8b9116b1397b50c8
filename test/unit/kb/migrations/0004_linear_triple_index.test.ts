import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0004_linear_triple_index', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('re-indexes triples by their linear verbalisation alone and drops the vectors made from the old text', () => {
    migrate(db, ':memory:', 3);
    db.exec(`
      INSERT INTO entities (id, name, name_key, type) VALUES (1, 'Odysseus', 'odysseus', 'Person'), (2, 'Ithaca', 'ithaca', 'Place');
      INSERT INTO triples (id, source_id, relation, target_id, description) VALUES (5, 1, 'KING_OF', 2, 'He ruled the rocky island for twenty years.');
      INSERT INTO fts_triple (rowid, text) VALUES (5, 'Odysseus king of Ithaca. He ruled the rocky island for twenty years.');
      INSERT INTO vec_triple (id, vector) VALUES (5, x'00');
      INSERT INTO vcode_triple (id, code) VALUES (5, x'00');
      UPDATE vector_state SET generation = 3 WHERE kind = 'triple';
    `);
    migrate(db, ':memory:', 4);
    expect(schemaVersion(db)).toBe(4);
    const match = (q: string): number[] =>
      db.prepare('SELECT rowid FROM fts_triple WHERE fts_triple MATCH ?').pluck().all(q) as number[];
    expect(match('king')).toEqual([5]);
    expect(match('rocky')).toEqual([]);
    expect(db.prepare('SELECT description FROM triples WHERE id = 5').pluck().get()).toMatch(/rocky island/);
    expect(db.prepare('SELECT COUNT(*) FROM vec_triple').pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM vcode_triple').pluck().get()).toBe(0);
    expect(db.prepare(`SELECT generation FROM vector_state WHERE kind = 'triple'`).pluck().get()).toBe(4);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
