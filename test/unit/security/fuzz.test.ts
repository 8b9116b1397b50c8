import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, type Method, type Reply } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { startBrowserServer, type BrowserServer } from '../../../src-main/serve.js';
import { tempEngine } from '../../support/tempEngine.js';
import { fuzzCases, type FuzzCase, type FuzzPlaces } from './support/fuzzPayloads.js';

/**
 * Every Api method, in process and through browser mode's POST /api/<method>, gets generated
 * hostile payloads (support/fuzzPayloads.ts). Each must get a typed error (never INTERNAL), a job
 * it starts must fail typed too, the reply must stay small, and the engine must keep serving.
 */

const SEED = 0x5ec0de;
const JOB_LIMIT_MS = 30_000;

let engine: Engine;
let dispose: () => Promise<void>;
let server: BrowserServer;
let places: FuzzPlaces;
const originalCwd = process.cwd();

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine());
  const sandbox = mkdtempSync(join(tmpdir(), 'polyhop-fuzz-'));
  const outputDir = join(sandbox, 'out');
  const cwd = join(outputDir, 'a', 'b', 'c');
  mkdirSync(cwd, { recursive: true });
  const inputFile = join(sandbox, 'input.txt');
  writeFileSync(inputFile, 'A small plain text document.\n');
  places = { kb: 'fuzz', inputFile, outputDir };
  // Relative paths in payloads resolve three levels below the output folder: traversals stay inside the sandbox.
  process.chdir(cwd);
  const renderer = join(sandbox, 'renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Polyhop</title>');
  server = await startBrowserServer({ engine, rendererDir: renderer });
});

afterAll(async () => {
  process.chdir(originalCwd);
  await server?.close();
  await dispose?.();
});

/** The fuzz KB exists before each method's cases (kb:delete/rename cases may not leave it). */
async function ensureKb(): Promise<void> {
  const list = await engine.call('kb:list', {});
  if (list.ok && !(list.value as { name: string }[]).some((k) => k.name === places.kb))
    await engine.call('kb:create', { name: places.kb });
}

/** Checks one reply; a started job must also end typed, within the limit. */
async function checkReply(method: Method, c: FuzzCase, reply: Reply<unknown>, failures: string[]): Promise<void> {
  const where = `${method} ← ${c.label}`;
  if (!reply.ok) {
    if (typeof reply.error?.code !== 'string' || reply.error.code === 'INTERNAL')
      failures.push(`${where}: ${reply.error?.code}: ${reply.error?.message?.slice(0, 300)}`);
    if ((reply.error?.message?.length ?? 0) > 5000)
      failures.push(`${where}: error message of ${reply.error.message.length} chars echoes the payload`);
    return;
  }
  const jobId = (reply.value as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== 'string') return;
  const state = await Promise.race([
    engine.jobs.settled(jobId),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), JOB_LIMIT_MS)),
  ]);
  if (state === 'hung') failures.push(`${where}: job ${jobId} still running after ${JOB_LIMIT_MS} ms`);
  else if (state?.error?.code === 'INTERNAL')
    failures.push(`${where}: job failed INTERNAL: ${state.error.message.slice(0, 300)}`);
}

async function stillServing(): Promise<void> {
  const settings = await engine.call('system:getSettings', {});
  expect(settings.ok).toBe(true);
  const list = await engine.call('kb:list', {});
  expect(list.ok).toBe(true);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
}

describe('generated hostile payloads on every Api channel', () => {
  it('in process: typed errors only, and the engine keeps serving', async () => {
    const failures: string[] = [];
    let count = 0;
    for (const [i, method] of METHODS.entries()) {
      await ensureKb();
      for (const c of fuzzCases(method, places, SEED + i)) {
        const reply = await engine.call(method, c.payload).catch((error: unknown) => ({
          ok: false as const,
          error: { code: 'INTERNAL', message: `threw: ${String(error)}`, details: {} },
        }));
        await checkReply(method, c, reply, failures);
        count++;
      }
      await stillServing();
    }
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(METHODS.length * 40);
  });

  it('over HTTP (browser mode): the same payloads, typed errors, the server keeps serving', async () => {
    const failures: string[] = [];
    for (const [i, method] of METHODS.entries()) {
      await ensureKb();
      for (const c of fuzzCases(method, places, SEED + i)) {
        const body = c.json ?? JSON.stringify(c.payload) ?? 'null';
        const res = await post(method, body);
        if (res.status !== 200) {
          failures.push(`${method} ← ${c.label}: HTTP ${res.status}`);
          continue;
        }
        await checkReply(method, c, JSON.parse(res.body) as Reply<unknown>, failures);
      }
      const ok = await post('system:getSettings', '{}');
      expect(JSON.parse(ok.body)).toMatchObject({ ok: true });
    }
    expect(failures).toEqual([]);
    await stillServing();
  });

  it('over HTTP: bodies JSON cannot carry, and numbers JSON turns into Infinity', async () => {
    for (const body of [
      '{"kb": NaN}',
      '{"id": Infinity}',
      '{"kb": "a",}',
      '\u0000',
      '{"a":'.repeat(100_000),
      '\uFEFF{}',
      '{"kb": "\\ud800"}',
      '[1e999]',
    ]) {
      const res = await post('docs:get', body);
      const reply = JSON.parse(res.body) as Reply<unknown>;
      expect([200, 400], body.slice(0, 20)).toContain(res.status);
      expect(reply.ok).toBe(false);
      if (!reply.ok) expect(['INVALID_REQUEST', 'NOT_FOUND']).toContain(reply.error.code);
    }
    const infinite = JSON.parse((await post('docs:get', '{"kb": "fuzz", "id": 1e999}')).body) as Reply<unknown>;
    expect(infinite).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    await stillServing();
  });
});

function post(method: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/${encodeURIComponent(method)}`,
        method: 'POST',
        headers: {
          host: `127.0.0.1:${server.port}`,
          authorization: `Bearer ${server.token}`,
          'content-type': 'application/json',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
