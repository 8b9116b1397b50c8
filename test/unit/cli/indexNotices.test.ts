import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { startFlavouredServer, type FlavouredServer } from '../../support/flavouredServer.js';

/** `polyhop index` tells the user when an inference server makes the job wait (busy, loading). */
let dir: string;
let server: FlavouredServer;
const polyhop = (...args: string[]) => polyhopInProcess(dir, args);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-index-notices-'));
  mkdirSync(join(dir, 'models'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'ithaca.txt'), 'Odysseus was the king of Ithaca. Penelope waited for him there.');
  server = await startFlavouredServer({ flavour: 'llama-server', model: 'qwen3-8b', embeddings: true });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('polyhop index and a busy server', () => {
  it('prints the wait on stderr, with the server’s own words', async () => {
    for (const [id, role] of [
      ['gen', 'generation'],
      ['emb', 'embedding'],
    ] as const)
      expect(
        await polyhop('models', 'endpoint', 'add', id, '--role', role, '--url', server.baseUrl, '--model', 'qwen3-8b'),
      ).toMatchObject({ code: 0 });
    expect((await polyhop('kb', 'create', 'odyssey')).code).toBe(0);
    expect((await polyhop('add', join(dir, 'docs'), '--kb', 'odyssey')).code).toBe(0);

    server.busy(1, { status: 503, message: 'Service Unavailable' });
    let stderr = '';
    const write = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    try {
      await polyhop('index', '--kb', 'odyssey');
    } finally {
      write.mockRestore();
    }
    // Whichever call met the 503 (the embedder's probe at start, or a job's call), the user is told.
    expect(stderr).toMatch(/^Inference server: .*HTTP 503.*Service Unavailable/m);
  });
});
