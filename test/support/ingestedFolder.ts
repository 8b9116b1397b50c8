import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { ingestPending } from '../../src-main/engine/mder/ingestPending.js';
import { NgramEmbedder } from './NgramEmbedder.js';
import { call, tempEngine } from './tempEngine.js';

/**
 * An engine with KB `kb` holding a folder of files, loaded and chunked (ingestPending, no LLM):
 * `write(folder)` puts the files there first. `dispose` removes the engine and the folder.
 */
export async function ingestedFolder(
  kb: string,
  write: (folder: string) => void | Promise<void>,
): Promise<{ engine: Engine; folder: string; dispose: () => Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), `polyhop-${kb}-`));
  await write(folder);
  const embedder = new NgramEmbedder(32);
  const { engine, dispose } = await tempEngine({ embedder });
  await call(engine, 'kb:create', { name: kb });
  await call(engine, 'docs:add', { kb, paths: [folder] });
  await ingestPending(engine.kbs.get(kb).kb, { embedder });
  return {
    engine,
    folder,
    dispose: async () => {
      await dispose();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
