import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE_DIRS = ['src-renderer', 'src-main', 'src-preload'];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Builds main, preload and renderer with electron-vite when `out/` is missing or older than
 * the sources, so `npm start` and `npm run serve` work straight after `npm ci`.
 */
export function ensureBuilt(appRoot: string): void {
  const marker = join(appRoot, 'out', 'renderer', 'index.html');
  const sources = SOURCE_DIRS.map((d) => join(appRoot, d)).filter((d) => existsSync(d));
  if (sources.length === 0) return; // an installed build ships out/ without sources
  if (existsSync(marker) && statSync(marker).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  process.stderr.write('Building the app (electron-vite build)…\n');
  const result = spawnSync(
    process.execPath,
    [join(appRoot, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    { cwd: appRoot, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (result.status !== 0) throw new Error(`electron-vite build failed (exit ${result.status})`);
}
