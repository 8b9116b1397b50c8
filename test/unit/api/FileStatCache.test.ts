import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStatCache } from '../../../src-main/engine/api/FileStatCache.js';

/** What docs:source and docs:file keep between clicks: read once while the file stays as it was. */
describe('FileStatCache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-statcache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads a file once while its size and time stay, again once either changes', async () => {
    const path = file('a.txt', 'one');
    const cache = new FileStatCache<string>();
    let reads = 0;
    const read = () =>
      cache.get(
        path,
        'h1',
        async () => `v${++reads}`,
        (v) => v.length,
      );
    expect(await read()).toBe('v1');
    expect(await read()).toBe('v1');
    writeFileSync(path, 'two!'); // another size
    expect(await read()).toBe('v2');
    utimesSync(path, new Date(), new Date(Date.now() + 60_000)); // same size, another time
    expect(await read()).toBe('v3');
    expect(
      await cache.get(
        path,
        'h2',
        async () => 'other hash',
        (v) => v.length,
      ),
    ).toBe('other hash');
  });

  it('keeps at most maxEntries and maxWeight, dropping the least recently used; a failed read is not kept', async () => {
    const cache = new FileStatCache<string>({ maxEntries: 2, maxWeight: 10 });
    const paths = ['b', 'c', 'd'].map((n) => file(`${n}.txt`, n));
    let reads = 0;
    const get = (p: string, weight = 1) =>
      cache.get(
        p,
        'h',
        async () => `${p}:${++reads}`,
        () => weight,
      );
    await get(paths[0]!);
    await get(paths[1]!);
    await get(paths[0]!); // b is now the most recent
    await get(paths[2]!); // drops c
    expect(cache.size).toBe(2);
    expect(await get(paths[0]!)).toBe(`${paths[0]}:1`);
    expect(await get(paths[1]!)).toBe(`${paths[1]}:4`);
    await expect(
      cache.get(
        paths[2]!,
        'x',
        () => Promise.reject(new Error('unreadable')),
        () => 1,
      ),
    ).rejects.toThrow();
    const heavy = new FileStatCache<string>({ maxWeight: 5 });
    let heavyReads = 0;
    const big = () =>
      heavy.get(
        paths[0]!,
        'h',
        async () => `big${++heavyReads}`,
        () => 6,
      );
    await big();
    expect(await big()).toBe('big2'); // heavier than the cache: never kept
    expect(heavy.size).toBe(0);
  });
});
