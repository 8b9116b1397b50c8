import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../../src-main/engine/ingest/watch/FolderWatcher.js';
import { inotifyRefusal, inotifyWatchedInodes } from '../../../../src-main/engine/ingest/watch/inotifyLimits.js';
import { repoRoot as REPO_ROOT } from '../../../support/tempEngine.js';

/**
 * Issue 25: the two inotify limits @parcel/watcher 2.6 does not report, on the real kernel. Each
 * case runs a watcher in a child process under `unshare -Ur` (a user namespace, whose inotify
 * limits in /proc/sys/user are its own to lower: CI and the dev machines allow it), so the
 * machine's limits are not touched.
 */
const root = mkdtempSync(join(tmpdir(), 'polyhop-watch-limits-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface ChildResult {
  atStart: string;
  change: { mode: string; reason: string } | null;
}

/** The child's one JSON line; a child that hangs is killed after 60 s and fails the test. */
async function watchInNamespace(limits: string, dir: string, step: string): Promise<ChildResult> {
  const child = join(REPO_ROOT, 'test', 'unit', 'ingest', 'watch', 'support', 'limitedWatchChild.ts');
  const run = spawn('unshare', ['-Ur', 'sh', '-c', `${limits} && exec node --import tsx '${child}' '${dir}' ${step}`], {
    cwd: REPO_ROOT,
    timeout: 60_000,
  });
  let out = '';
  let err = '';
  run.stdout.on('data', (b: Buffer) => (out += b.toString()));
  run.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    run.on('close', (c, s) => resolve([c, s])),
  );
  expect({ code, signal }, err).toEqual({ code: 0, signal: null });
  return JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult;
}

describe('inotify limits the native watcher does not report', () => {
  it('with no inotify instance left, watching starts with periodic scans instead of hanging the process', async () => {
    const dir = join(root, 'no-instance');
    mkdirSync(dir);
    const result = await watchInNamespace('echo 0 > /proc/sys/user/max_inotify_instances', dir, 'start');
    expect(result.atStart).toBe('polling');
    expect(result.change?.reason).toMatch(/limit on watched files was reached \(EMFILE\).*max_user_instances/);
  }, 90_000);

  it('a folder created once the watch limit is reached turns watching into periodic scans, naming it', async () => {
    const dir = join(root, 'at-limit');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    // The folder and its one subfolder take the two watches the namespace allows.
    const result = await watchInNamespace('echo 2 > /proc/sys/user/max_inotify_watches', dir, 'new-folder');
    expect(result.atStart).toBe('events');
    expect(result.change?.mode).toBe('polling');
    expect(result.change?.reason).toContain(`(ENOSPC: the new folder ${join(dir, 'new')} could not be watched)`);
  }, 90_000);

  it('below the limits, the kernel gives an instance and a created folder is found among the watched ones', async () => {
    expect(await inotifyRefusal(root)).toBeUndefined();
    const dir = join(root, 'room');
    mkdirSync(dir);
    const seen: string[] = [];
    let onSeen = (): void => undefined;
    /** Resolves once `wanted` was handed on. */
    const handedOn = (wanted: string): Promise<void> =>
      new Promise((resolve) => {
        onSeen = () => void (seen.includes(wanted) && resolve());
        onSeen();
      });
    const modes: string[] = [];
    await using watcher = await FolderWatcher.create(dir, {
      debounceMs: 50,
      onChanges: async (paths) => {
        seen.push(...paths);
        onSeen();
      },
      onRescan: async () => {},
      onModeChange: (mode) => modes.push(mode),
    });
    const created = handedOn(join(dir, 'new'));
    mkdirSync(join(dir, 'new'));
    await created;
    // Written once the folder's creation was handed on (inotify watches a new folder only once its
    // creation event is read: a file written before that is found by the hand-over's scan, not by an event).
    const inside = handedOn(join(dir, 'new', 'inside.md'));
    writeFileSync(join(dir, 'new', 'inside.md'), 'inside');
    // An event from inside the new folder can only come through its watch.
    await inside;
    expect((await inotifyWatchedInodes())?.has(statSync(join(dir, 'new'), { bigint: true }).ino)).toBe(true);
    expect(watcher.mode).toBe('events');
    expect(modes).toEqual([]);
  });
});
