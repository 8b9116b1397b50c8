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
  // Sixteen one-chunk English documents: Preprocess asks them eight to a call (its default), so
  // two units, each refused for the same reason.
  for (let i = 1; i <= 16; i++)
    writeFileSync(
      join(dir, 'docs', `king${i}.txt`),
      `King number ${i} ruled the island of Ithaca for ${i + 10} years.`,
    );
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
    // Both Preprocess units (eight documents each) failed for the same reason: one line, counted.
    expect(run.err).toMatch(/^ {2}2 × preprocess: ingest\/summarise-batch: .*HTTP 400.*model "gen" is not loaded$/m);

    // The job result carries the count (the Corpus screen reads it); JSON output exits non-zero too.
    const json = await polyhop('--json', 'index', '--kb', 'odyssey');
    expect(json.code).not.toBe(0);
    const printed = JSON.parse(json.out) as { status: string; result: { failed: number; units: number } };
    expect(printed.status).toBe('done');
    expect(printed.result.failed).toBe(2);
    // A batch refused fails each of its eight documents, none left indexed without its text.
    const docs = JSON.parse((await polyhop('--json', 'docs', '--kb', 'odyssey')).out) as {
      rows: { status: string; error: string | null }[];
    };
    expect(docs.rows).toHaveLength(16);
    for (const d of docs.rows) expect(d).toMatchObject({ status: 'error', error: expect.stringContaining('HTTP 400') });
  });
});
