import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Engine } from '../../src-main/engine/api/Engine.js';
import { appPaths } from '../../src-main/engine/api/paths.js';

export const repoRoot = resolve(__dirname, '..', '..');

/** A real engine over a fresh temporary data directory; `dispose` removes it. */
export async function tempEngine(): Promise<{ engine: Engine; dataDir: string; dispose: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'polyhop-test-'));
  const engine = await Engine.create({ paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')) });
  return {
    engine,
    dataDir,
    dispose: async () => {
      await engine.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
