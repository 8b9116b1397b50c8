import { readdir, readFile, readlink } from 'node:fs/promises';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/**
 * What Linux's inotify limits do to @parcel/watcher 2.6 that it does not report, checked from
 * outside it (elsewhere these return "fine").
 */

/**
 * Whether the kernel would give a new inotify instance and one watch on `dir` now: the errno
 * name when it refuses (EMFILE past fs.inotify.max_user_instances, ENOSPC past
 * max_user_watches), else undefined. @parcel/watcher makes its one inotify instance inside
 * `subscribe` on the calling thread, and when inotify_init1 fails its start signal never comes
 * (Backend::run waits on it; parcel-bundler/watcher PR #246): the whole process hangs. Asked in a
 * worker thread, whose own event loop makes its own instance for `fs.watch` (libuv keeps one
 * per loop), closed again when the worker ends.
 */
export async function inotifyRefusal(dir: string): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     try { require('node:fs').watch(workerData).close(); parentPort.postMessage(null); }
     catch (error) { parentPort.postMessage(error.code ?? String(error)); }`,
    { eval: true, workerData: dir },
  );
  const [refused] = (await once(worker, 'message')) as [string | null];
  await worker.terminate();
  // A folder that went or cannot be read is the subscription's own error to report, not a limit.
  return refused === 'EMFILE' || refused === 'ENFILE' || refused === 'ENOSPC' ? refused : undefined;
}

/**
 * The inode numbers of the folders this process's inotify instances watch (the `inotify wd:… ino:…`
 * lines of /proc/self/fdinfo), or null where that cannot be read. Past max_user_watches
 * @parcel/watcher reports a folder created under a watched one and leaves it unwatched without an
 * error (InotifyBackend::handleSubscription drops the failed watchDir): this tells the two apart.
 */
export async function inotifyWatchedInodes(): Promise<Set<bigint> | null> {
  if (process.platform !== 'linux') return null;
  let fds: string[];
  try {
    fds = await readdir('/proc/self/fd');
  } catch {
    return null;
  }
  const inodes = new Set<bigint>();
  for (const fd of fds) {
    try {
      if ((await readlink(`/proc/self/fd/${fd}`)) !== 'anon_inode:inotify') continue;
      const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
      for (const m of info.matchAll(/^inotify wd:\d+ ino:([0-9a-f]+) /gm)) inodes.add(BigInt(`0x${m[1]}`));
    } catch {
      // A descriptor closed while it was read: not one of the watcher's.
    }
  }
  return inodes;
}
