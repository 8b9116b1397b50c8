import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { backupKb, readKbMeta, verifyKbFile } from '../../../src-main/engine/kb/KbFile.js';
import { useTempKb } from './kbFixtures.js';

function errorOf(fn: () => unknown): PolyhopError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PolyhopError) return error;
    throw error;
  }
  return undefined;
}

describe('MetaRepository and KbFile', () => {
  const t = useTempKb();

  it('keeps meta values as text beside the format marker, and refuses a blank name', () => {
    expect(t.kb.metadata.value('format')).toBe('polyhop-kb');
    t.kb.metadata.setValue('note', 'kept');
    expect(t.kb.metadata.value('note')).toBe('kept');
    expect(t.kb.metadata.value('absent')).toBeUndefined();
    expect(errorOf(() => t.kb.metadata.setMeta({ name: '   ', description: 'lost' }))?.code).toBe('BAD_INPUT');
    // Nothing of the refused call is written.
    expect(t.kb.metadata.meta()).toMatchObject({ name: 'Test KB', description: '' });
  });

  it('refuses to initialise a file whose meta is missing or has another format marker', () => {
    expect(errorOf(() => t.kb.metadata.initialise(1, undefined))).toBeUndefined();
    t.kb.metadata.setValue('format', 'something-else');
    expect(errorOf(() => t.kb.metadata.initialise(1, undefined))?.message).toMatch(/format marker/);
    t.kb.close();
    expect(errorOf(() => readKbMeta(t.kb.file))?.message).toMatch(/its meta is missing/);
  });

  it('deletes a setting given undefined', () => {
    t.kb.metadata.setSetting('k', { a: [1, 2] });
    expect(t.kb.metadata.getSetting('k')).toEqual({ a: [1, 2] });
    t.kb.metadata.setSetting('k', undefined);
    expect(t.kb.metadata.getSetting('k')).toBeUndefined();
  });

  it('backs up to a verified copy and leaves no part file when the target cannot be written', async () => {
    const db = new Database(t.kb.file, { readonly: true });
    try {
      const copy = join(t.dir, 'copy.sqlite');
      const seen: number[] = [];
      await backupKb(db, copy, (done) => seen.push(done));
      expect(verifyKbFile(copy).name).toBe('Test KB');
      expect(seen.length).toBeGreaterThan(0);
      // The copy is written and verified, then cannot take the name of a non-empty folder.
      const blocked = join(t.dir, 'taken');
      mkdirSync(join(blocked, 'inside'), { recursive: true });
      await expect(backupKb(db, blocked)).rejects.toBeInstanceOf(PolyhopError);
      expect(existsSync(`${blocked}.part`)).toBe(false);
    } finally {
      db.close();
    }
  });

  it('says a damaged file is damaged', () => {
    t.kb.close();
    const bytes = Buffer.alloc(8192, 0x2a);
    const junk = join(t.dir, 'junk.sqlite');
    writeFileSync(junk, bytes);
    expect(errorOf(() => verifyKbFile(junk))?.code).toBe('BAD_INPUT');
  });
});
