import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import picomatch from 'picomatch';
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

  // @parcel/watcher's errors carry only strerror's text; this is what it said when a user namespace
  // allowed 3 inotify watches (`unshare -Ur`, /proc/sys/user/max_inotify_watches = 3) under 5 folders.
  const enospc = () => new Error("inotify_add_watch on '/data/notes/e' failed: No space left on device");
  it.each([
    ['when subscribing', 0],
    ['reported later through the callback', 1],
  ])('falls back to periodic scans when the system watch limit is reached %s, and says so', async (_, later) => {
    let unsubscribed = 0;
    const modes: [string, string][] = [];
    let rescans = 0;
    let rescanned!: () => void;
    const twoRescans = new Promise<void>((resolve) => (rescanned = resolve));
    const watcher = await FolderWatcher.create(root, {
      pollIntervalMs: 20,
      subscribeFn: async (_dir, callback) => {
        if (!later) throw enospc();
        setImmediate(() => callback(enospc(), []));
        return { unsubscribe: async () => void unsubscribed++ };
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
    expect(unsubscribed).toBe(later);
    expect(modes).toHaveLength(1);
    expect(modes[0]![0]).toBe('polling');
    expect(modes[0]![1]).toMatch(/limit on watched files was reached \(ENOSPC\).*every 0 s.*max_user_watches/);
  });

  it('falls back to periodic scans when the native watch ends with another error, and says why', async () => {
    let unsubscribed = 0;
    const modes: [string, string][] = [];
    let rescanned!: () => void;
    const rescan = new Promise<void>((resolve) => (rescanned = resolve));
    const watcher = await FolderWatcher.create(root, {
      subscribeFn: async (_dir, callback) => {
        // inotify's poll() interrupted by a signal ends @parcel/watcher's backend (parcel-bundler/watcher#253).
        setImmediate(() => callback(new Error('Unable to poll: Interrupted system call'), []));
        return { unsubscribe: async () => void unsubscribed++ };
      },
      onChanges: async () => {},
      onRescan: async () => rescanned(),
      onModeChange: (mode, reason) => modes.push([mode, reason]),
    });
    await rescan;
    await watcher.dispose();
    expect(watcher.mode).toBe('polling');
    expect(unsubscribed).toBe(1);
    expect(modes).toEqual([
      [
        'polling',
        'the watcher stopped (Unable to poll: Interrupted system call); scanning the folder every 60 s instead',
      ],
    ]);
  });

  it('scans once and keeps the events when the watcher says some were dropped', async () => {
    const errors: unknown[] = [];
    let rescanned!: () => void;
    const rescan = new Promise<void>((resolve) => (rescanned = resolve));
    await using watcher = await FolderWatcher.create(root, {
      subscribeFn: async (_dir, callback) => {
        setImmediate(() => callback(new Error('Too many events. File system must be re-scanned.'), []));
        return { unsubscribe: async () => {} };
      },
      onChanges: async () => {},
      onRescan: async () => rescanned(),
      onError: (error) => errors.push(error),
    });
    await rescan;
    expect(watcher.mode).toBe('events');
    expect(errors.map(String)).toEqual(['Error: Too many events. File system must be re-scanned.']);
  });

  it('gives the native watcher globs that leave out what the rules leave out, in any case', () => {
    const rules = new IgnoreRules('/r', { patterns: ['drafts', 'a/b/**'] });
    // As @parcel/watcher's wrapper compiles them (picomatch.makeRe with dot), matched on the relative path.
    const globs = rules.watcherGlobs().map((g) => new RegExp(picomatch.makeRe(g, { dot: true }).source));
    const paths = [
      'Node_Modules',
      'sub/.Git',
      'x/$RECYCLE.BIN',
      'Lost+Found',
      'sub/~$Report.docx',
      '.~lock.Letter.odt#',
      'UPLOAD.TMP',
      'a.Part',
      'x~',
      '.hidden',
      'sub/drafts',
      'a/b/c.md',
      'a/c.md',
      'notes.md',
      'tmp.md',
      'Draft.docx',
    ];
    const native = paths.filter((p) => globs.some((re) => re.test(p)));
    expect(native).toEqual(paths.filter((p) => rules.reason(`/r/${p}`) !== undefined));
    expect(native).toHaveLength(12);
  });
});
