import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  migrate,
  schemaVersion,
} from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0001_initial', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('is numbered in sequence with the others', () => {
    // Ascending and unique; numbers are handed out per branch, so a gap lasts until they merge.
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions[0]).toBe(1);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
    expect(LATEST_SCHEMA_VERSION).toBe(versions.at(-1));
  });

  it('creates the schema on an empty database and records version 1', () => {
    migrate(db, ':memory:', 1);
    expect(schemaVersion(db)).toBe(1);
    const names = (
      db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'trigger')").pluck().all() as string[]
    ).sort();
    for (const table of [
      'meta',
      'settings',
      'documents',
      'chunks',
      'entities',
      'entity_aliases',
      'triples',
      'triple_chunks',
      'vector_state',
      'fts_chunk',
      'fts_triple',
      'fts_entity',
      'checkpoints',
      'llm_cache',
      'qa_history',
      'vec_chunk',
      'vcode_chunk',
      'vec_entity_name',
      'vcode_entity_name',
      'vec_entity_summary',
      'vcode_entity_summary',
      'vec_triple',
      'vcode_triple',
      'triple_chunks_count_ins',
      'triple_chunks_count_del',
      'chunks_count_ins',
      'chunks_count_del',
    ])
      expect(names).toContain(table);
    expect(db.prepare('SELECT kind FROM vector_state ORDER BY kind').pluck().all()).toEqual([
      'chunk',
      'entity_name',
      'entity_summary',
      'triple',
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('keeps per-document counts through its triggers', () => {
    migrate(db, ':memory:', 1);
    db.exec(`
      INSERT INTO documents (id, path, title, hash, mime, size, status, added_at) VALUES (1, '/a', 'a', 'h', 't', 1, 'pending', 'now');
      INSERT INTO chunks (id, document_id, ord, text, start_offset, end_offset) VALUES (10, 1, 0, 'x', 0, 1), (11, 1, 1, 'y', 2, 3);
      INSERT INTO entities (id, name, name_key, type) VALUES (1, 'A', 'a', 't'), (2, 'B', 'b', 't');
      INSERT INTO triples (id, source_id, relation, target_id) VALUES (1, 1, 'r', 2);
      INSERT INTO triple_chunks (triple_id, chunk_id) VALUES (1, 10), (1, 11);
    `);
    const counts = () => db.prepare('SELECT chunk_count AS c, triple_count AS t FROM documents WHERE id = 1').get();
    expect(counts()).toEqual({ c: 2, t: 1 });
    db.exec('DELETE FROM triple_chunks WHERE chunk_id = 10');
    expect(counts()).toEqual({ c: 2, t: 1 });
    db.exec('DELETE FROM chunks WHERE id = 11');
    expect(counts()).toEqual({ c: 1, t: 0 });
  });

  it('refuses to delete an entity that triples still use', () => {
    migrate(db, ':memory:', 1);
    db.exec(`INSERT INTO entities (id, name, name_key, type) VALUES (1, 'A', 'a', 't'), (2, 'B', 'b', 't');
             INSERT INTO triples (source_id, relation, target_id) VALUES (1, 'r', 2);`);
    expect(() => db.exec('DELETE FROM entities WHERE id = 2')).toThrow(/FOREIGN KEY/);
  });
});
