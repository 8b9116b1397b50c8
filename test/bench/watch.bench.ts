/**
 * A watched folder at scale (issue 25): a tree of `--files` files in folders of 100 is watched by
 * the FolderWatcher the app uses (@parcel/watcher, the app's ignore rules and debounce). Prints the time
 * until the tree is watched, the process's memory taken by watching it (RSS and JS heap, before
 * and after), the watcher's CPU while the tree is idle (`--idle-s` seconds, as a share of one
 * core), and for `--changes` edits one at a time how long until the changed path is handed on
 * (goal ≤ 5 s with the app's default 2 s quiet time). Memory is the whole process's: the native
 * watcher's tree of paths lives outside the JS heap.
 *
 *   npm run bench watch                     # 20,000 files, 10 s idle, 5 changes
 *   npm run bench watch -- --files 100000   # the scale, where the machine allows it
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderWatcher } from '../../src-main/engine/ingest/watch/FolderWatcher.js';
import { numberArg } from './support/benchArgs.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

export async function run(args: string[]): Promise<void> {
  const files = numberArg(args, '--files', 20_000);
  const idleS = numberArg(args, '--idle-s', 10);
  const changes = numberArg(args, '--changes', 5);
  const root = mkdtempSync(join(tmpdir(), 'polyhop-bench-watch-'));
  try {
    let t = performance.now();
    for (let i = 0; i < files; i++) {
      const dir = join(root, `d${Math.floor(i / 100) % 100}`, `e${Math.floor(i / 10_000)}-${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe ferry left Marlow at ${i % 24}:00.\n`);
    }
    console.log(
      `watch bench: ${files.toLocaleString('en')} files in ${Math.ceil(files / 100)} folders, written in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    global.gc?.();
    const before = process.memoryUsage();
    let onChange: ((paths: string[]) => void) | undefined;
    t = performance.now();
    const watcher = await FolderWatcher.create(root, {
      onChanges: async (paths) => onChange?.(paths),
      onRescan: async () => {},
      onModeChange: (mode, reason) => console.log(`  mode ${mode}: ${reason}`),
      onError: (error) => console.log(`  error: ${String(error)}`),
    });
    try {
      const readyMs = performance.now() - t;
      global.gc?.();
      const after = process.memoryUsage();
      console.log(
        `  watched in ${(readyMs / 1000).toFixed(1)} s (mode ${watcher.mode}); RSS ${mib(before.rss)} -> ${mib(after.rss)} (+${mib(after.rss - before.rss)}), JS heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}`,
      );
      const cpu = process.cpuUsage();
      const wall = performance.now();
      await new Promise((r) => setTimeout(r, idleS * 1000));
      const used = process.cpuUsage(cpu);
      const share = (used.user + used.system) / 1000 / (performance.now() - wall);
      console.log(`  idle ${idleS} s: ${(100 * share).toFixed(2)} % of one core (goal ≤ 2 %)`);
      const delays: number[] = [];
      for (let c = 0; c < changes; c++) {
        const i = Math.floor(((c + 0.5) * files) / changes);
        const path = join(
          root,
          `d${Math.floor(i / 100) % 100}`,
          `e${Math.floor(i / 10_000)}-${Math.floor(i / 100)}`,
          `note-${i}.md`,
        );
        const seen = new Promise<void>((resolve) => {
          onChange = (paths) => {
            if (paths.includes(path)) resolve();
          };
        });
        const start = performance.now();
        writeFileSync(path, `# Note ${i}\n\nThe ferry now leaves Henley.\n`);
        await seen;
        delays.push(performance.now() - start);
      }
      console.log(
        `  a change handed on after ${delays.map((d) => (d / 1000).toFixed(2)).join(', ')} s (goal ≤ 5 s; default 2 s quiet); peak RSS ${mib(process.resourceUsage().maxRSS * 1024)}`,
      );
    } finally {
      await watcher.dispose();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
