import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase, insertChunkWithCode } from '../../../support/migrationDatabase.js';

describe('migration 0015_vector_centres', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('gives every vector family a zero centre, never computed, keeping its codes and generation', () => {
    migrate(db, ':memory:', 14);
    insertChunkWithCode(db);
    db.exec(`UPDATE vector_state SET generation = 7 WHERE kind = 'chunk'`);
    const kinds = db.prepare('SELECT kind FROM vector_state ORDER BY kind').pluck().all();
    migrate(db, ':memory:', 15);
    expect(schemaVersion(db)).toBe(15);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(15);
    const states = db
      .prepare('SELECT kind, generation, centre, centred_at AS centredAt FROM vector_state ORDER BY kind')
      .all() as { kind: string; generation: number; centre: Buffer | null; centredAt: number }[];
    expect(states.map((s) => s.kind)).toEqual(kinds);
    expect(states.every((s) => s.centre === null && s.centredAt === 0)).toBe(true);
    expect(states.find((s) => s.kind === 'chunk')?.generation).toBe(7);
    expect(db.prepare('SELECT hex(code) FROM vcode_chunk WHERE id = 1').pluck().get()).toBe('01000000');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
