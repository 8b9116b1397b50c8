import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase, insertChunkWithCode } from '../../../support/migrationDatabase.js';

describe('migration 0017_staged_recentring', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  it('keeps every family live in `code`, with its centre, nothing staged, and a free second code column', () => {
    migrate(db, ':memory:', 16);
    insertChunkWithCode(db);
    db.exec(`UPDATE vector_state SET generation = 7, centre = x'0000003f', centred_at = 64 WHERE kind = 'chunk'`);
    const kinds = db.prepare('SELECT kind FROM vector_state ORDER BY kind').pluck().all() as string[];
    migrate(db, ':memory:', 17);
    expect(schemaVersion(db)).toBe(17);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(17);
    const states = db
      .prepare(
        `SELECT kind, generation, hex(centre) AS centre, centred_at AS centredAt, code_column AS live, staged_sum AS sum,
                staged_centre AS staged, staged_count AS stagedCount, staged_after AS stagedAfter FROM vector_state ORDER BY kind`,
      )
      .all() as { kind: string; live: string; sum: null; staged: null; stagedCount: number; stagedAfter: number }[];
    expect(states.map((s) => s.kind)).toEqual(kinds);
    expect(
      states.every((s) => s.live === 'code' && !s.sum && !s.staged && s.stagedCount === 0 && s.stagedAfter === 0),
    ).toBe(true);
    expect(states.find((s) => s.kind === 'chunk')).toMatchObject({ generation: 7, centre: '0000003F', centredAt: 64 });
    expect(db.prepare('SELECT hex(code), code_alt FROM vcode_chunk WHERE id = 1').raw().get()).toEqual([
      '01000000',
      null,
    ]);
    for (const kind of kinds) db.prepare(`SELECT code_alt FROM vcode_${kind}`).all();
    expect(() => db.exec(`UPDATE vector_state SET code_column = 'codes' WHERE kind = 'chunk'`)).toThrow(/CHECK/);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
