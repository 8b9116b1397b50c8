import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EndpointProbeView, EndpointStatusView, Settings } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { refusedPort, startModelListServer, type ModelListServer } from '../../support/modelListServer.js';
import { runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/**
 * Inference servers through the Api (`endpoints:*`), kept in settings; the API key is stored and
 * sent to the server, and appears in no Api reply, log line, backup or export.
 */
const KEY = 'sk-test-5f1e9c0d7a2b4e6f8a1c3d5e7f9b0a2c';

let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
let server: ModelListServer;
/** Every Api reply and everything printed while the tests ran. */
const seen: string[] = [];

async function api<T>(method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  seen.push(JSON.stringify(reply));
  if (!reply.ok)
    throw Object.assign(new Error(`${method}: ${reply.error.code}: ${reply.error.message}`), {
      code: reply.error.code,
    });
  return reply.value as T;
}
const failure = (method: string, payload: unknown): Promise<{ code: string; message: string }> =>
  api(method, payload).then(
    () => expect.fail(`${method} succeeded`),
    (e: Error & { code: string }) => e,
  );

beforeAll(async () => {
  for (const stream of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, stream).mockImplementation(
      (...parts: unknown[]) =>
        void seen.push(parts.map((p) => (p instanceof Error ? `${p.message}\n${p.stack}` : String(p))).join(' ')),
    );
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(
      ((chunk: string | Uint8Array, ...rest: never[]) => (
        seen.push(String(chunk)),
        write(chunk, ...rest)
      )) as typeof stream.write,
    );
  }
  ({ engine, dataDir, dispose } = await tempEngine());
  server = await startModelListServer({ models: ['qwen3-8b', 'bge-m3'], apiKey: KEY });
});
afterAll(async () => {
  await server.close();
  await dispose();
  vi.restoreAllMocks();
});

describe('endpoints through the Api', () => {
  it('adds, lists and removes an endpoint, kept in settings', async () => {
    expect(await api<EndpointStatusView[]>('endpoints:list', {})).toEqual([]);
    const added = await api<EndpointStatusView>('endpoints:add', {
      id: 'gpu1',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'qwen3-8b',
      apiKey: KEY,
      concurrency: 8,
    });
    expect(added).toMatchObject({
      id: 'gpu1',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'qwen3-8b',
      hasApiKey: true,
      concurrency: 8,
      inFlight: 0,
    });
    expect(added).not.toHaveProperty('apiKey');
    await api('endpoints:add', { id: 'emb', role: 'embedding', baseUrl: server.baseUrl, model: 'bge-m3' });
    const listed = await api<EndpointStatusView[]>('endpoints:list', {});
    expect(listed.map((e) => [e.id, e.hasApiKey, e.concurrency])).toEqual([
      ['gpu1', true, 8],
      ['emb', false, 4],
    ]);
    // Stored for every front door (and the next run), key included.
    const file = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Settings;
    expect(file.endpoints.map((e) => [e.id, e.apiKey])).toEqual([
      ['gpu1', KEY],
      ['emb', undefined],
    ]);

    expect(await api('endpoints:remove', { id: 'emb' })).toEqual({ removed: true });
    expect((await api<EndpointStatusView[]>('endpoints:list', {})).map((e) => e.id)).toEqual(['gpu1']);
    expect(await failure('endpoints:remove', { id: 'emb' })).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a duplicate id and an invalid endpoint, naming the field', async () => {
    expect(
      await failure('endpoints:add', { id: 'gpu1', role: 'generation', baseUrl: server.baseUrl, model: 'x' }),
    ).toMatchObject({ code: 'ALREADY_EXISTS' });
    for (const [field, bad] of [
      ['id', { id: 'GPU 1' }],
      ['baseUrl', { baseUrl: 'not a url' }],
      ['baseUrl', { baseUrl: 'ftp://gpu1/v1' }],
      ['concurrency', { concurrency: 0 }],
    ] as const) {
      const error = await failure(
        'endpoints:add',
        Object.assign({ id: 'new', role: 'generation', baseUrl: 'http://gpu1:8080/v1', model: 'm' }, bad),
      );
      expect(error.code, field).toBe('INVALID_REQUEST');
      expect(error.message, field).toMatch(new RegExp(`${field}:`));
    }
    expect((await api<EndpointStatusView[]>('endpoints:list', {})).map((e) => e.id)).toEqual(['gpu1']);
  });

  it('tests an endpoint with its model list and one authenticated call of its role, sending its key', async () => {
    const before = server.requests.length;
    const probe = await api<EndpointProbeView>('endpoints:test', { id: 'gpu1' });
    expect(probe).toMatchObject({
      ok: true,
      servedModels: ['qwen3-8b', 'bge-m3'],
      modelServed: true,
      error: null,
      roleCall: { role: 'generation', ok: true, what: 'a one-token completion answered' },
    });
    expect(server.requests.slice(before)).toEqual([
      `GET /v1/models Bearer ${KEY}`,
      `POST /v1/chat/completions Bearer ${KEY}`,
    ]);

    await api('endpoints:add', {
      id: 'other-model',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'llama-70b',
      apiKey: KEY,
    });
    expect(await api('endpoints:test', { id: 'other-model' })).toMatchObject({ ok: true, modelServed: false });
    expect(await failure('endpoints:test', { id: 'nobody' })).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports a refused connection and a refused key as a failed probe, the key masked in what the server said', async () => {
    await api('endpoints:add', {
      id: 'refused',
      role: 'generation',
      baseUrl: `http://127.0.0.1:${await refusedPort()}/v1`,
      model: 'm',
      apiKey: KEY,
    });
    const refused = await api<EndpointProbeView>('endpoints:test', { id: 'refused' });
    expect(refused).toMatchObject({ ok: false, servedModels: [], modelServed: false });
    expect(refused.error).toMatch(/connect|connection/i);

    // The server echoes the wrong key it got; the reply must not hand the configured one back.
    const wrong = `${KEY}-rotated`;
    await api('endpoints:add', {
      id: 'wrong-key',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'qwen3-8b',
      apiKey: wrong,
    });
    const rejected = await api<EndpointProbeView>('endpoints:test', { id: 'wrong-key' });
    expect(rejected).toMatchObject({ ok: false });
    expect(rejected.error).toMatch(/401.*Incorrect API key provided: \[api key\]/);
    expect(rejected.error).not.toContain(wrong);
    await api('endpoints:remove', { id: 'wrong-key' });
  });
});

describe('settings replies never carry an API key', () => {
  it('system:getSettings says hasApiKey instead', async () => {
    const settings = await api<Settings>('system:getSettings', {});
    const gpu1 = settings.endpoints.find((e) => e.id === 'gpu1');
    expect(gpu1).toMatchObject({ id: 'gpu1', hasApiKey: true });
    expect(gpu1).not.toHaveProperty('apiKey');
  });

  it('system:setSettings round-trips what getSettings gave, keeping the stored key', async () => {
    const settings = await api<Settings>('system:getSettings', {});
    const changed = settings.endpoints.map((e) => (e.id === 'gpu1' ? { ...e, concurrency: 2 } : e));
    const reply = await api<Settings>('system:setSettings', { settings: { endpoints: changed } });
    expect(reply.endpoints.find((e) => e.id === 'gpu1')).toEqual(
      expect.objectContaining({ concurrency: 2, hasApiKey: true }),
    );
    expect(reply.endpoints.find((e) => e.id === 'gpu1')).not.toHaveProperty('apiKey');
    // The stored key still works.
    expect(await api('endpoints:test', { id: 'gpu1' })).toMatchObject({ ok: true });
    const file = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Settings;
    expect(file.endpoints.find((e) => e.id === 'gpu1')).toEqual(
      expect.objectContaining({ apiKey: KEY, concurrency: 2 }),
    );
    expect(file.endpoints.find((e) => e.id === 'gpu1')).not.toHaveProperty('hasApiKey');
  });

  it('a new key replaces the stored one; hasApiKey false (or left out) removes it; hasApiKey with no stored key is refused', async () => {
    const [gpu1] = (await api<Settings>('system:getSettings', {})).endpoints.filter((e) => e.id === 'gpu1');
    const rest = (await api<Settings>('system:getSettings', {})).endpoints.filter((e) => e.id !== 'gpu1');
    const stored = (): string | undefined =>
      (JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as Settings).endpoints.find(
        (e) => e.id === 'gpu1',
      )?.apiKey;

    await api('system:setSettings', { settings: { endpoints: [{ ...gpu1, apiKey: `${KEY}-2` }, ...rest] } });
    expect(stored()).toBe(`${KEY}-2`);
    await api('system:setSettings', { settings: { endpoints: [{ ...gpu1, hasApiKey: false }, ...rest] } });
    expect(stored()).toBeUndefined();
    expect(
      await failure('system:setSettings', { settings: { endpoints: [{ ...gpu1, hasApiKey: true }, ...rest] } }),
    ).toMatchObject({ code: 'INVALID_REQUEST' });
    await api('system:setSettings', { settings: { endpoints: [{ ...gpu1, hasApiKey: false, apiKey: KEY }, ...rest] } });
    expect(stored()).toBe(KEY);
  });

  it('a KB backup and its RDF export hold no settings: the key is in neither', async () => {
    await api('kb:create', { name: 'secrets' });
    const backup = join(dataDir, 'secrets.polyhop');
    const exported = join(dataDir, 'secrets.ttl');
    expect((await runJobToEnd(engine, 'kb:backup', { kb: 'secrets', outputPath: backup })).status).toBe('done');
    expect(
      (await runJobToEnd(engine, 'rdf:export', { kb: 'secrets', scope: { kind: 'all' }, outputPath: exported })).status,
    ).toBe('done');
    expect(readFileSync(exported, 'utf8').length).toBeGreaterThan(0);
    for (const file of [backup, exported]) expect(readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
    // The settings file itself does hold it (the test would prove nothing otherwise).
    expect(readFileSync(join(dataDir, 'settings.json')).includes(Buffer.from(KEY))).toBe(true);
  });

  it('no Api reply and no log line of this file carried the key', async () => {
    await failure('endpoints:add', {
      id: 'x',
      role: 'generation',
      baseUrl: 'http://a/v1',
      model: 'm',
      apiKey: KEY,
      concurrency: 999,
    });
    await failure('system:setSettings', {
      settings: {
        endpoints: [
          { id: 'Bad Id', role: 'generation', baseUrl: 'http://a/v1', model: 'm', apiKey: KEY, concurrency: 1 },
        ],
      },
    });
    expect(seen.length).toBeGreaterThan(15);
    expect(seen.filter((text) => text.includes(KEY))).toEqual([]);
  });
});
