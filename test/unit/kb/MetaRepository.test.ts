import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { backupKb, readKbMeta, verifyKbFile } from '../../../src-main/engine/kb/KbFile.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { createKb, tempDir } from './kbFixtures.js';

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
  let dir: string;
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  it('keeps meta values as text beside the format marker, and refuses a blank name', () => {
    expect(kb.metadata.value('format')).toBe('polyhop-kb');
    kb.metadata.setValue('note', 'kept');
    expect(kb.metadata.value('note')).toBe('kept');
    expect(kb.metadata.value('absent')).toBeUndefined();
    expect(errorOf(() => kb.metadata.setMeta({ name: '   ', description: 'lost' }))?.code).toBe('BAD_INPUT');
    // Nothing of the refused call is written.
    expect(kb.metadata.meta()).toMatchObject({ name: 'Test KB', description: '' });
  });

  it('refuses to initialise a file whose meta is missing or has another format marker', () => {
    expect(errorOf(() => kb.metadata.initialise(1, undefined))).toBeUndefined();
    kb.metadata.setValue('format', 'something-else');
    expect(errorOf(() => kb.metadata.initialise(1, undefined))?.message).toMatch(/format marker/);
    kb.close();
    expect(errorOf(() => readKbMeta(kb.file))?.message).toMatch(/its meta is missing/);
  });

  it('deletes a setting given undefined', () => {
    kb.metadata.setSetting('k', { a: [1, 2] });
    expect(kb.metadata.getSetting('k')).toEqual({ a: [1, 2] });
    kb.metadata.setSetting('k', undefined);
    expect(kb.metadata.getSetting('k')).toBeUndefined();
  });

  it('backs up to a verified copy and leaves no part file when the target cannot be written', async () => {
    const db = new Database(kb.file, { readonly: true });
    try {
      const copy = join(dir, 'copy.sqlite');
      const seen: number[] = [];
      await backupKb(db, copy, (done) => seen.push(done));
      expect(verifyKbFile(copy).name).toBe('Test KB');
      expect(seen.length).toBeGreaterThan(0);
      // The copy is written and verified, then cannot take the name of a non-empty folder.
      const blocked = join(dir, 'taken');
      mkdirSync(join(blocked, 'inside'), { recursive: true });
      await expect(backupKb(db, blocked)).rejects.toBeInstanceOf(PolyhopError);
      expect(existsSync(`${blocked}.part`)).toBe(false);
    } finally {
      db.close();
    }
  });

  it('says a damaged file is damaged', () => {
    kb.close();
    const bytes = Buffer.alloc(8192, 0x2a);
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, bytes);
    expect(errorOf(() => verifyKbFile(junk))?.code).toBe('BAD_INPUT');
  });
});
