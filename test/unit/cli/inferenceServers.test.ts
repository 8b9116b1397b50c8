import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { polyhopInProcess, type CliRun } from '../../support/cliInProcess.js';
import { refusedPort, startModelListServer, type ModelListServer } from '../../support/modelListServer.js';

/** `polyhop models endpoint add|list|remove|test` as a user types them, against a test server that lists its models. */
const KEY = 'sk-cli-0b7d2e4f6a8c1e3d5f7a9b2c4d6e8f0a';
let dir: string;
let server: ModelListServer;
const printed: string[] = [];

async function polyhop(...args: string[]): Promise<CliRun> {
  const run = await polyhopInProcess(dir, args);
  printed.push(run.out, run.err);
  return run;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-endpoints-'));
  mkdirSync(join(dir, 'models'));
  server = await startModelListServer({ models: ['qwen3-8b'], apiKey: KEY });
});
afterAll(async () => {
  delete process.env.POLYHOP_TEST_KEY;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('polyhop models endpoint', () => {
  it('adds servers (key from the environment) and lists them as a table', async () => {
    process.env.POLYHOP_TEST_KEY = KEY;
    const added = await polyhop(
      'models',
      'endpoint',
      'add',
      'gpu1',
      '--role',
      'generation',
      '--url',
      server.baseUrl,
      '--model',
      'qwen3-8b',
      '--api-key-env',
      'POLYHOP_TEST_KEY',
      '--concurrency',
      '8',
    );
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toMatch(/Added generation server "gpu1".*with an API key/);
    expect(
      await polyhop(
        'models',
        'endpoint',
        'add',
        'emb',
        '--role',
        'embedding',
        '--url',
        server.baseUrl,
        '--model',
        'bge-m3',
      ),
    ).toMatchObject({ code: 0 });

    const listed = await polyhop('models', 'endpoint', 'list');
    expect(listed.code).toBe(0);
    const [header, , ...rows] = listed.out.trim().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'id',
      'role',
      'url',
      'model',
      'health',
      'served model',
      'concurrency',
      'in flight',
    ]);
    expect(rows.map((r) => r.split(/\s{2,}/))).toEqual([
      ['gpu1', 'generation', server.baseUrl, 'qwen3-8b', 'unknown', '-', '8', '0'],
      ['emb', 'embedding', server.baseUrl, 'bge-m3', 'unknown', '-', '4', '0'],
    ]);
    const json = JSON.parse((await polyhop('--json', 'models', 'endpoint', 'list')).out) as {
      id: string;
      hasApiKey: boolean;
    }[];
    expect(json.map((e) => [e.id, e.hasApiKey])).toEqual([
      ['gpu1', true],
      ['emb', false],
    ]);
  });

  it('refuses what the Api refuses, with its reason and exit code 1; a missing --role is a usage error', async () => {
    const duplicate = await polyhop(
      'models',
      'endpoint',
      'add',
      'gpu1',
      '--role',
      'generation',
      '--url',
      server.baseUrl,
      '--model',
      'x',
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toMatch(/ALREADY_EXISTS/);
    const badUrl = await polyhop(
      'models',
      'endpoint',
      'add',
      'new',
      '--role',
      'generation',
      '--url',
      'gpu1:8080',
      '--model',
      'x',
    );
    expect(badUrl.code).toBe(1);
    expect(badUrl.err).toMatch(/INVALID_REQUEST.*baseUrl/);
    expect(
      await polyhop(
        'models',
        'endpoint',
        'add',
        'unset',
        '--role',
        'generation',
        '--url',
        server.baseUrl,
        '--model',
        'x',
        '--api-key-env',
        'POLYHOP_NO_SUCH_VAR',
      ),
    ).toMatchObject({ code: 1, err: expect.stringMatching(/POLYHOP_NO_SUCH_VAR.*not set/) });
    expect((await polyhop('models', 'endpoint', 'add', 'norole', '--url', server.baseUrl, '--model', 'x')).code).toBe(
      2,
    );
  });

  it('test prints the served models, whether the model is served and the call of its role; exit code 1 when not ok', async () => {
    const ok = await polyhop('models', 'endpoint', 'test', 'gpu1');
    expect(ok).toMatchObject({ code: 0, err: '' });
    expect(ok.out).toMatch(/"gpu1" lists: qwen3-8b/);
    expect(ok.out).toMatch(/The configured model "qwen3-8b" is served/);
    expect(ok.out).toMatch(/As a generation server: a one-token completion answered \(\d+ ms in all\)/);

    const unserved = await polyhop('models', 'endpoint', 'test', 'emb'); // no key: the server refuses it
    expect(unserved.code).toBe(1);
    expect(unserved.out).toMatch(/did not answer .*401/);

    await polyhop(
      'models',
      'endpoint',
      'add',
      'other',
      '--role',
      'generation',
      '--url',
      server.baseUrl,
      '--model',
      'llama-70b',
      '--api-key',
      KEY,
    );
    const missing = await polyhop('models', 'endpoint', 'test', 'other');
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/lists: qwen3-8b[\s\S]*"llama-70b" is NOT among them/);

    await polyhop(
      'models',
      'endpoint',
      'add',
      'down',
      '--role',
      'generation',
      '--url',
      `http://127.0.0.1:${await refusedPort()}/v1`,
      '--model',
      'm',
    );
    const down = await polyhop('models', 'endpoint', 'test', 'down');
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/"down" did not answer/);
    expect(JSON.parse((await polyhop('--json', 'models', 'endpoint', 'test', 'down')).out)).toMatchObject({
      ok: false,
      servedModels: [],
    });
  });

  it('remove forgets a server; nothing printed ever showed the key', async () => {
    expect(await polyhop('models', 'endpoint', 'remove', 'other')).toMatchObject({
      code: 0,
      out: 'Removed inference server "other"\n',
    });
    expect(await polyhop('models', 'endpoint', 'remove', 'other')).toMatchObject({
      code: 1,
      err: expect.stringMatching(/NOT_FOUND/),
    });
    expect(
      JSON.parse((await polyhop('--json', 'models', 'endpoint', 'list')).out).map((e: { id: string }) => e.id),
    ).toEqual(['gpu1', 'emb', 'down']);
    expect(printed.filter((text) => text.includes(KEY))).toEqual([]);
  });
});
