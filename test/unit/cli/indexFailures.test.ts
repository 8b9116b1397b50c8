import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { startModelListServer, type ModelListServer } from '../../support/modelListServer.js';

/**
 * `polyhop index` against a generation server that refuses every call (HTTP 400, as a server does
 * for a model it does not serve) and an embedding server that works: every unit fails.
 */
let dir: string;
let server: ModelListServer;
const polyhop = (...args: string[]) => polyhopInProcess(dir, args);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-index-failures-'));
  mkdirSync(join(dir, 'models'));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'ithaca.txt'), 'Odysseus was the king of Ithaca. Penelope waited for him there.');
  writeFileSync(join(dir, 'docs', 'troy.txt'), 'Priam was the king of Troy. Hector was his eldest son.');
  server = await startModelListServer({
    models: ['gen', 'emb'],
    embeddings: true,
    chatRefusal: {
      status: 400,
      body: { error: { message: 'model "gen" is not loaded', type: 'invalid_request_error' } },
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('polyhop index when units fail', () => {
  it('exits non-zero and says how many units failed and why, grouped by reason', async () => {
    for (const [id, role, model] of [
      ['gen', 'generation', 'gen'],
      ['emb', 'embedding', 'emb'],
    ] as const)
      expect(
        await polyhop('models', 'endpoint', 'add', id, '--role', role, '--url', server.baseUrl, '--model', model),
      ).toMatchObject({ code: 0 });
    expect((await polyhop('kb', 'create', 'odyssey')).code).toBe(0);
    expect((await polyhop('add', join(dir, 'docs'), '--kb', 'odyssey')).code).toBe(0);

    const run = await polyhop('index', '--kb', 'odyssey');
    expect(run.code).not.toBe(0);
    expect(run.out).not.toContain('Indexing done.');
    expect(run.err).toMatch(/ 2 of \d+ units failed/);
    // Both documents' Preprocess units failed for the same reason: one line, counted.
    expect(run.err).toMatch(/^ {2}2 × preprocess: .*HTTP 400.*model "gen" is not loaded$/m);

    // The job result carries the count (the Corpus screen reads it); JSON output exits non-zero too.
    const json = await polyhop('--json', 'index', '--kb', 'odyssey');
    expect(json.code).not.toBe(0);
    const printed = JSON.parse(json.out) as { status: string; result: { failed: number; units: number } };
    expect(printed.status).toBe('done');
    expect(printed.result.failed).toBe(2);
  });
});
