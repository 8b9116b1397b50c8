import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/engine/kb/migrations/migrate.js';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { KbRegistry } from '../../../src-main/engine/kb/KbRegistry.js';
import { tempDir } from './kbFixtures.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof PolyhopError ? error.code : String(error);
  }
  return undefined;
}

describe('KbRegistry', () => {
  let dir: string;
  let cleanup: () => void;
  let registry: KbRegistry;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    registry = new KbRegistry({ dataDir: dir });
  });
  afterEach(() => {
    registry.close();
    cleanup();
  });

  it('creates KBs in their own directories with a per-KB default base IRI', () => {
    expect(registry.list()).toEqual([]);
    const kb = registry.create({ name: 'My Papers', description: 'pdfs' });
    const entry = registry.get('my papers');
    expect(entry).toMatchObject({
      name: 'My Papers',
      description: 'pdfs',
      problem: null,
      schemaVersion: LATEST_SCHEMA_VERSION,
    });
    expect(entry.id).toMatch(/^my-papers-[0-9a-f]{8}$/);
    expect(entry.file).toBe(join(dir, 'kbs', entry.id, 'kb.sqlite'));
    expect(entry.baseIri).toBe(`urn:polyhop:kb:${entry.id}/`);
    expect(kb.file).toBe(entry.file);
    expect(registry.open('MY PAPERS')).toBe(kb);
    const cjk = registry.create({ name: '论文 2024', baseIri: 'https://example.org/papers/' });
    expect(cjk.metadata.meta().baseIri).toBe('https://example.org/papers/');
    expect(registry.get('论文 2024').id).toMatch(/^2024-[0-9a-f]{8}$/);
    expect(registry.list().map((e) => e.name)).toEqual(['My Papers', '论文 2024']);
  });

  it('validates names and base IRIs and refuses duplicates', () => {
    registry.create({ name: 'alpha' });
    expect(codeOf(() => registry.create({ name: 'ALPHA' }))).toBe('ALREADY_EXISTS');
    for (const bad of ['', ' ', '-x', 'a/b', '../up', 'x'.repeat(65), 'a\nb'])
      expect(
        codeOf(() => registry.create({ name: bad })),
        bad,
      ).toBe('BAD_INPUT');
    expect(codeOf(() => registry.create({ name: 'beta', baseIri: 'https://example.org/no-slash' }))).toBe('BAD_INPUT');
    expect(registry.list().map((e) => e.name)).toEqual(['alpha']);
  });

  it('renames (keeping id and base IRI), deletes, and reports missing KBs', () => {
    registry.create({ name: 'alpha' });
    registry.create({ name: 'beta' });
    const before = registry.get('alpha');
    const renamed = registry.rename('alpha', 'Gamma');
    expect(renamed).toMatchObject({ id: before.id, name: 'Gamma', baseIri: before.baseIri });
    expect(codeOf(() => registry.get('alpha'))).toBe('NOT_FOUND');
    expect(codeOf(() => registry.rename('gamma', 'BETA'))).toBe('ALREADY_EXISTS');
    expect(registry.rename('gamma', 'GAMMA').name).toBe('GAMMA');
    registry.delete('gamma');
    expect(existsSync(dirname(before.file))).toBe(false);
    expect(registry.list().map((e) => e.name)).toEqual(['beta']);
    for (const fn of [() => registry.open('gamma'), () => registry.delete('gamma'), () => registry.rename('nope', 'x')])
      expect(codeOf(fn)).toBe('NOT_FOUND');
  });

  it('lists a KB from a newer Polyhop with its problem instead of failing', () => {
    registry.create({ name: 'future' });
    const entry = registry.get('future');
    registry.close();
    const raw = new Database(entry.file);
    raw.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 1}`);
    raw.close();
    const fresh = new KbRegistry({ dataDir: dir });
    expect(fresh.list()).toMatchObject([
      { name: 'future', schemaVersion: LATEST_SCHEMA_VERSION + 1, problem: expect.stringMatching(/newer Polyhop/) },
    ]);
    expect(codeOf(() => fresh.open('future'))).toBe('UNSUPPORTED');
    fresh.close();
  });
});
