import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { afterAll, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../../src-main/engine/ingest/watch/FolderWatcher.js';
import { IgnoreRules } from '../../../../src-main/engine/ingest/watch/IgnoreRules.js';

const root = mkdtempSync(join(tmpdir(), 'polyhop-watcher-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Hand-overs as a queue the test awaits one by one. */
function handOvers() {
  const batches: string[][] = [];
  const waiting: ((paths: string[]) => void)[] = [];
  return {
    onChanges: async (paths: string[]) => {
      const next = waiting.shift();
      if (next) next(paths);
      else batches.push(paths);
    },
    next: () =>
      new Promise<string[]>((resolve) => (batches.length > 0 ? resolve(batches.shift()!) : waiting.push(resolve))),
  };
}

describe('IgnoreRules', () => {
  it('leaves out lock, temporary, VCS, dependency and hidden entries, and the user patterns, at any depth', () => {
    const rules = new IgnoreRules('/r', { patterns: ['drafts', '*.bak', 'a/b/**'] });
    const reasons = Object.fromEntries(
      [
        '~$x.docx',
        '.~lock.x.odt#',
        'x.tmp',
        'sub/.DS_Store',
        '.git',
        'sub/node_modules',
        'x~',
        '.hidden',
        'sub/drafts',
        'y.bak',
        'a/b/c.md',
        'a/c.md',
        'notes.md',
        'tmp.md',
      ].map((p) => [p, rules.reason(`/r/${p}`) ?? null]),
    );
    expect(reasons).toEqual({
      '~$x.docx': 'system',
      '.~lock.x.odt#': 'system',
      'x.tmp': 'system',
      'sub/.DS_Store': 'system',
      '.git': 'system',
      'sub/node_modules': 'system',
      'x~': 'system',
      '.hidden': 'hidden',
      'sub/drafts': 'ignored',
      'y.bak': 'ignored',
      'a/b/c.md': 'ignored',
      'a/c.md': null,
      'notes.md': null,
      'tmp.md': null,
    });
    expect(rules.covers('/r/sub/node_modules/pkg/README.md')).toBe(true);
    expect(rules.covers('/r/sub/README.md')).toBe(false);
  });
});

describe('FolderWatcher', () => {
  it('hands on created, changed and deleted paths once the folder is quiet, without ignored ones', async () => {
    const dir = join(root, 'events');
    mkdirSync(dir);
    writeFileSync(join(dir, 'old.txt'), 'old');
    const changes = handOvers();
    await using watcher = await FolderWatcher.create(dir, {
      debounceMs: 100,
      writeFinishMs: 50,
      ignore: ['*.bak'],
      onChanges: changes.onChanges,
      onRescan: async () => {},
    });
    expect(watcher.mode).toBe('events');
    writeFileSync(join(dir, 'a.txt'), 'one');
    writeFileSync(join(dir, 'a.txt'), 'two');
    writeFileSync(join(dir, '~$a.docx'), 'lock');
    writeFileSync(join(dir, 'a.bak'), 'backup');
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules', 'x.md'), 'dep');
    expect(await changes.next()).toEqual([join(dir, 'a.txt')]);
    unlinkSync(join(dir, 'old.txt'));
    expect(await changes.next()).toEqual([join(dir, 'old.txt')]);
  });

  it('falls back to periodic scans when the system watch limit is reached, and says so', async () => {
    const fake = new EventEmitter() as EventEmitter & { close: () => Promise<void> };
    let closed = 0;
    fake.close = async () => void closed++;
    const modes: [string, string][] = [];
    let rescans = 0;
    let rescanned!: () => void;
    const twoRescans = new Promise<void>((resolve) => (rescanned = resolve));
    const watcher = await FolderWatcher.create(root, {
      pollIntervalMs: 20,
      watchFn: () => {
        // inotify_add_watch fails with ENOSPC past fs.inotify.max_user_watches; chokidar reports it as an error event.
        setImmediate(() =>
          fake.emit(
            'error',
            Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' }),
          ),
        );
        return fake as unknown as FSWatcher;
      },
      onChanges: async () => {},
      onRescan: async () => {
        if (++rescans === 2) rescanned();
      },
      onModeChange: (mode, reason) => modes.push([mode, reason]),
    });
    await twoRescans;
    await watcher.dispose();
    expect(watcher.mode).toBe('polling');
    expect(closed).toBe(1);
    expect(modes).toHaveLength(1);
    expect(modes[0]![0]).toBe('polling');
    expect(modes[0]![1]).toMatch(/limit on watched files was reached \(ENOSPC\).*every 0 s.*max_user_watches/);
  });
});
