import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FolderWatcher, type WatchMode } from '../../../../../src-main/engine/ingest/watch/FolderWatcher.js';

/**
 * Run by watchLimits.test.ts under `unshare -Ur` with the namespace's inotify limits lowered:
 * watches `dir`; with `new-folder`, then creates a folder in it and a file beside it (the event
 * that brings the folder's creation); prints the mode at start and the first mode change (or null
 * after 20 s) as one JSON line.
 */
const [dir, step] = process.argv.slice(2) as [string, string];
let changed!: (change: { mode: WatchMode; reason: string }) => void;
const modeChange = new Promise<{ mode: WatchMode; reason: string }>((resolve) => (changed = resolve));
const watcher = await FolderWatcher.create(dir, {
  debounceMs: 50,
  onChanges: async () => {},
  onRescan: async () => {},
  onModeChange: (mode, reason) => changed({ mode, reason }),
});
const atStart = watcher.mode;
if (step === 'new-folder') {
  mkdirSync(join(dir, 'new'));
  writeFileSync(join(dir, 'new', 'inside.md'), 'inside');
  writeFileSync(join(dir, 'beside.md'), 'beside');
}
const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000).unref());
console.log(JSON.stringify({ atStart, change: await Promise.race([modeChange, timeout]) }));
await watcher.dispose();
