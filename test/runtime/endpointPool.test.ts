import { getEventListeners, setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelRuntime } from '../../src-main/engine/api/ModelRuntime.js';
import { SettingsStore } from '../../src-main/engine/api/SettingsStore.js';
import { z } from 'zod';
import { CancelledError, PolyhopError } from '../../src-main/engine/base/errors.js';
import { CachingLlm } from '../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../src-main/engine/models/CallCache.js';
import { cosine } from '../../src-main/engine/models/Embedder.js';
import { LlamaCppEmbedder } from '../../src-main/engine/models/LlamaCppEmbedder.js';
import type { RenderedPrompt } from '../../src-main/engine/models/Llm.js';
import { UsageMeter } from '../../src-main/engine/models/UsageMeter.js';
import type { EndpointConfig } from '../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiLlm } from '../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { PooledEmbedder } from '../../src-main/engine/models/endpoints/PooledEmbedder.js';
import { PooledLlm, type PooledLlmOptions } from '../../src-main/engine/models/endpoints/PooledLlm.js';
import { probeEndpoint } from '../../src-main/engine/models/endpoints/probeEndpoint.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { OpenAiTestServer } from '../support/openAiServer.js';

// The pool over real servers: two test-side OpenAI-compatible servers run the fixture GGUF
// through node-llama-cpp, and faults are injected into them. One slot each and temperature 0,
// so a call gives the same reply whichever server answers it.
const prompt = (user: string): RenderedPrompt => ({
  name: 'test/endpoint',
  version: '1',
  system: 'Reply with JSON only.',
  user,
  variables: { user },
});
const schema = z.object({
  name: z.string().min(1).max(10),
  kind: z.enum(['person', 'place', 'thing']),
  rank: z.number().int().min(0).max(9),
  note: z.string().max(4).optional(),
});
const MAX = 80;

let modelPath: string;
let a: OpenAiTestServer;
let b: OpenAiTestServer;
let embedder: LlamaCppEmbedder;
const opened: { dispose(): Promise<void> }[] = [];

const endpoint = (id: string, server: OpenAiTestServer, extra: Partial<EndpointConfig> = {}): EndpointConfig => ({
  id,
  role: 'generation',
  baseUrl: server.baseUrl,
  model: server.modelName,
  concurrency: 1,
  ...extra,
});

async function pool(configs: EndpointConfig[], options: PooledLlmOptions = {}): Promise<PooledLlm> {
  const llm = await PooledLlm.create(configs, { healthIntervalMs: 60_000, ...options });
  opened.push(llm);
  return llm;
}

const statusOf = (llm: PooledLlm | PooledEmbedder, id: string) => llm.status().find((s) => s.id === id)!;

beforeAll(async () => {
  modelPath = await tinyLlamaPath();
  embedder = await LlamaCppEmbedder.create({ modelPath, threads: 1, contextSize: 512 });
  [a, b] = await Promise.all([
    OpenAiTestServer.start({ modelPath, contextSize: 1024, embedder }),
    OpenAiTestServer.start({ modelPath, contextSize: 1024, embedder }),
  ]);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.dispose()));
  await Promise.all([a.revive(), b.revive()]);
  a.clearFaults();
  b.clearFaults();
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await embedder?.dispose();
});

describe('OpenAiLlm over one server', () => {
  it('answers schema-valid JSON and streamed text, with the server’s usage, context and a model (not URL) identity', async () => {
    const llm = await OpenAiLlm.create(endpoint('a', a));
    expect(llm.identity).toBe('openai:tiny-llama');
    expect(llm.identity).not.toContain('127.0.0.1');
    expect(llm.contextTokens).toBe(1024);
    // Calibrated on the server's tokenizer (character-level for the fixture): the estimate is close to the real count.
    const reply = await fetch(a.baseUrl.replace('/v1', '/tokenize'), {
      method: 'POST',
      body: JSON.stringify({ content: 'Ulisse tornò a Itaca.' }),
    });
    const real = ((await reply.json()) as { tokens: unknown[] }).tokens.length;
    expect(Math.abs(llm.countTokens('Ulisse tornò a Itaca.') - real)).toBeLessThanOrEqual(Math.ceil(real * 0.2));

    const { value, usage } = await llm.generateJson(prompt('Describe Ithaca.'), schema, { maxTokens: MAX });
    expect(schema.safeParse(value).success).toBe(true);
    expect(usage.promptTokens).toBeGreaterThan(10);
    expect(usage.completionTokens).toBeGreaterThan(5);
    expect(usage.completionTokens).toBeLessThanOrEqual(MAX);

    const chunks: string[] = [];
    const text = await llm.generateText(prompt('Say something.'), {
      maxTokens: 24,
      onTextChunk: (c) => chunks.push(c),
    });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join('')).toBe(text.text);
    expect(text.stopReason).toBe('maxTokens');
    expect(text.usage.completionTokens).toBe(24);
  });

  it('retries a reply that is not JSON, then reports LLM_OUTPUT_INVALID (a model error, not an endpoint failure)', async () => {
    const single = await pool([endpoint('a', a)]);
    a.inject('invalidJson');
    const retried = await single.generateJson(prompt('Describe Pylos.'), schema, { maxTokens: MAX });
    expect(schema.safeParse(retried.value).success).toBe(true);
    expect(a.workRequests).toBeGreaterThanOrEqual(2);

    const llm = await pool([endpoint('a', a), endpoint('b', b)]);
    a.inject('invalidJson', 2);
    b.inject('invalidJson', 2);
    const before = a.workRequests + b.workRequests;
    const error = (await llm
      .generateJson(prompt('Describe Sparta.'), schema, { maxTokens: MAX })
      .catch((e: unknown) => e)) as PolyhopError;
    expect(error.code).toBe('LLM_OUTPUT_INVALID');
    expect(error.message).toMatch(/not JSON/);
    // Both tries on one endpoint, none elsewhere, and nobody taken out.
    expect(a.workRequests + b.workRequests - before).toBe(2);
    expect(llm.status().map((s) => [s.health, s.failures])).toEqual([
      ['up', 0],
      ['up', 0],
    ]);
  });
});

describe('EndpointPool failover', () => {
  it('spreads calls by concurrency: parallelism is the sum of the healthy endpoints’ slots, each capped to the slots its server reports', async () => {
    // A server of three slots (its /props says total_slots 3): a's concurrency 3 stands.
    const three = await OpenAiTestServer.start({ modelPath, contextSize: 1024, slots: 3 });
    const started: Promise<unknown>[] = [];
    try {
      const llm = await pool([endpoint('a', three, { concurrency: 3 }), endpoint('b', b, { concurrency: 1 })]);
      expect(llm.parallelism).toBe(4);
      // A call takes its slot before its first await (run → #acquire), so the split is seen at once,
      // however fast either server answers.
      const start = (n: number) => {
        for (let i = 0; i < n; i++)
          started.push(llm.generateText(prompt(`spread ${started.length}`), { maxTokens: 4 }));
        return { a: statusOf(llm, 'a').inFlight, b: statusOf(llm, 'b').inFlight };
      };
      expect(start(2)).toEqual({ a: 2, b: 0 }); // the most free slots first
      expect(start(2)).toEqual({ a: 3, b: 1 }); // every slot taken
      expect(start(1)).toEqual({ a: 3, b: 1 }); // past parallelism: it waits for a slot to free
      await Promise.all(started);
      expect(statusOf(llm, 'a').calls + statusOf(llm, 'b').calls).toBe(5);
      three.inject('http500');
      await llm.generateText(prompt('spread x'), { maxTokens: 4 });
      expect(llm.parallelism).toBe(1);
      // a's one-slot server caps concurrency 3 to 1.
      expect((await pool([endpoint('a', a, { concurrency: 3 })])).parallelism).toBe(1);
    } finally {
      await Promise.allSettled(started); // a failed check leaves no call to the closing server
      await three.close();
    }
  });

  it.each(['http500', 'dropStream', 'kill'] as const)(
    '%s on one endpoint: the call is answered by the other, with the same reply',
    async (fault) => {
      const reference = await (
        await pool([endpoint('b', b)])
      ).generateJson(prompt(`Describe Troy (${fault}).`), schema, { maxTokens: MAX });
      const llm = await pool([endpoint('a', a), endpoint('b', b)]);
      a.inject(fault);
      const { value } = await llm.generateJson(prompt(`Describe Troy (${fault}).`), schema, { maxTokens: MAX });
      expect(value).toEqual(reference.value);
      expect(statusOf(llm, 'a')).toMatchObject({ health: 'down', failures: 1, inFlight: 0 });
      expect(statusOf(llm, 'a').lastError).toMatch(/endpoint a/);
      expect(statusOf(llm, 'b')).toMatchObject({ health: 'up', calls: 1 });
    },
  );

  it('a refused connection (server gone) fails over; a streamed reply still adds up after the retry', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)]);
    await a.kill();
    const chunks: string[] = [];
    const result = await llm.generateText(prompt('After the fall.'), {
      maxTokens: 20,
      onTextChunk: (c) => chunks.push(c),
      onTextRestart: () => chunks.splice(0),
    });
    expect(chunks.join('')).toBe(result.text);
    expect(statusOf(llm, 'a').lastError).toMatch(/Connection error|ECONNREFUSED|fetch failed/i);
  });

  it('a dropped stream mid-reply is retried, and the listener is told to drop the lost attempt’s text', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)]);
    a.inject('dropStream');
    const chunks: string[] = [];
    let restarts = 0;
    const result = await llm.generateText(prompt('Sing, muse.'), {
      maxTokens: 30,
      onTextChunk: (c) => chunks.push(c),
      onTextRestart: () => {
        restarts++;
        chunks.splice(0);
      },
    });
    expect(restarts).toBe(1);
    expect(chunks.join('')).toBe(result.text);
    expect(result.text.length).toBeGreaterThan(0);
    expect(statusOf(llm, 'a').health).toBe('down');
  });

  it('a stall past the stall time takes the endpoint out', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)], { stallMs: 3000 });
    a.inject('stall');
    const { value } = await llm.generateJson(prompt('Describe Icarius.'), schema, { maxTokens: MAX });
    expect(schema.safeParse(value).success).toBe(true);
    expect(statusOf(llm, 'a')).toMatchObject({ health: 'down' });
    expect(statusOf(llm, 'a').lastError).toMatch(/no data for 3000 ms/);
  });

  it('a downed endpoint comes back after a health check', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)], { healthIntervalMs: 100 });
    await a.kill();
    await llm.generateText(prompt('x'), { maxTokens: 2 });
    expect(statusOf(llm, 'a').health).toBe('down');
    await a.revive();
    await vi.waitFor(() => expect(statusOf(llm, 'a').health).toBe('up'), { timeout: 60_000, interval: 100 });
    expect(llm.parallelism).toBe(2);
  });

  it('a prompt longer than the context fails the call without trying the other endpoint, as BAD_INPUT like the local model (caught before the request: the context is known from /props)', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)]);
    const error = await llm.generateText(prompt('word '.repeat(400)), { maxTokens: 4 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect((error as PolyhopError).code).toBe('BAD_INPUT');
    expect((error as PolyhopError).message).toMatch(/leaves 0 of endpoint a's \d+-token context/);
    expect(llm.status().map((s) => [s.health, s.calls])).toEqual([
      ['up', 1],
      ['up', 0],
    ]);
  });

  it('with every endpoint down, a call waits for one, then fails naming each and its last error', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)], { allDownWaitMs: 500 });
    await Promise.all([a.kill(), b.kill()]);
    const error = (await llm.generateText(prompt('x'), { maxTokens: 2 }).catch((e: unknown) => e)) as PolyhopError;
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toMatch(
      /Every generation endpoint is down.*a \(http:\/\/127\.0\.0\.1:\d+\/v1\): .+; b \(http:\/\/127\.0\.0\.1:\d+\/v1\): .+/,
    );
  });

  it('with every endpoint down, a call resumes when one comes back', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)], { healthIntervalMs: 100 });
    await Promise.all([a.kill(), b.kill()]);
    const pending = llm.generateText(prompt('y'), { maxTokens: 2 });
    await vi.waitFor(() => expect(llm.status().filter((s) => s.health === 'down')).toHaveLength(2), {
      timeout: 60_000,
      interval: 50,
    });
    await b.revive();
    await expect(pending).resolves.toMatchObject({ stopReason: 'maxTokens' });
  });

  it('a cancel mid-call is a CancelledError and leaves the endpoint in; a job’s signal keeps no listener per call', async () => {
    const llm = await pool([endpoint('a', a), endpoint('b', b)]);
    const ac = new AbortController();
    let chunks = 0;
    const cancelled = llm.generateText(prompt('Go on.'), {
      maxTokens: 900,
      signal: ac.signal,
      onTextChunk: () => ++chunks === 3 && ac.abort(),
    });
    await expect(cancelled).rejects.toBeInstanceOf(CancelledError);
    expect(llm.status().map((s) => [s.health, s.failures, s.inFlight])).toEqual([
      ['up', 0, 0],
      ['up', 0, 0],
    ]);
    const job = new AbortController();
    setMaxListeners(256, job.signal); // as JobManager does: twelve calls at once follow it
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        llm.generateText(prompt(`listener ${i}`), { maxTokens: 2, signal: job.signal }),
      ),
    );
    expect(getEventListeners(job.signal, 'abort')).toHaveLength(0);
  });

  it('refuses endpoints that serve different models', async () => {
    const other = await OpenAiTestServer.start({ modelPath, modelName: 'other-model', contextSize: 512 });
    try {
      const error = (await PooledLlm.create([endpoint('a', a), endpoint('c', other)]).catch(
        (e: unknown) => e,
      )) as PolyhopError;
      expect(error.code).toBe('BAD_INPUT');
      expect(error.message).toMatch(/serve different models.*a serves tiny-llama.*c serves other-model/);
    } finally {
      await other.close();
    }
  });

  it('the call cache is keyed by model, not URL: the same call through another endpoint is a hit', async () => {
    const store = new MemoryCallCacheStore();
    const meter = new UsageMeter();
    const first = await new CachingLlm(await pool([endpoint('a', a)]), { store, meter }).generateJson(
      prompt('Describe Penelope.'),
      schema,
      { maxTokens: MAX },
    );
    const served = b.workRequests;
    const second = await new CachingLlm(await pool([endpoint('b', b)]), { store, meter }).generateJson(
      prompt('Describe Penelope.'),
      schema,
      { maxTokens: MAX },
    );
    expect(second.value).toEqual(first.value);
    expect(second.usage.cached).toBe(true);
    expect(b.workRequests).toBe(served);
    // The server's usage fed the accounting: the one model call's tokens are what the server reported.
    expect(meter.snapshot()).toMatchObject({
      calls: 1,
      cacheHits: 1,
      promptTokens: first.usage.promptTokens,
      completionTokens: first.usage.completionTokens,
    });
  });
});

describe('PooledEmbedder', () => {
  const embedding = (id: string, server: OpenAiTestServer): EndpointConfig => ({
    ...endpoint(id, server),
    role: 'embedding',
    concurrency: 2,
  });

  it('returns normalised vectors in input order, the model’s own, and fails a batch over to the other endpoint', async () => {
    const pooled = await PooledEmbedder.create([embedding('a', a), embedding('b', b)], {
      batchSize: 2,
      healthIntervalMs: 60_000,
    });
    opened.push(pooled);
    expect(pooled.dimension).toBe(embedder.dimension);
    expect(pooled.identity).toMatch(/^openai:tiny-llama:/);
    const texts = ['Ithaca', 'Penelope weaves', 'Telemaco', 'Troia', 'Pylos'];
    a.inject('http500');
    const vectors = await pooled.embed(texts);
    const local = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    vectors.forEach((v, i) => {
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      expect(cosine(v, local[i]!)).toBeCloseTo(1, 5);
    });
    expect(statusOf(pooled, 'a')).toMatchObject({ health: 'down', failures: 1 });
  });

  it('a reply that stalls after its headers takes the endpoint out', async () => {
    const pooled = await PooledEmbedder.create([embedding('a', a), embedding('b', b)], {
      stallMs: 2000,
      healthIntervalMs: 60_000,
    });
    opened.push(pooled);
    a.inject('stall');
    const [vector] = await pooled.embed(['Ithaca']);
    expect(cosine(vector!, (await embedder.embed(['Ithaca']))[0]!)).toBeCloseTo(1, 5);
    expect(statusOf(pooled, 'a')).toMatchObject({ health: 'down', failures: 1 });
    expect(statusOf(pooled, 'a').lastError).toMatch(/no data for 2000 ms after the reply started/);
  });
});

describe('probeEndpoint', () => {
  it('reports what a live server serves, and a dead one without throwing or leaking the key', async () => {
    const live = await probeEndpoint(endpoint('a', a, { apiKey: 'sk-secret-123' }));
    expect(live).toMatchObject({ ok: true, servedModels: ['tiny-llama'], modelServed: true, error: null });
    await a.kill();
    const dead = await probeEndpoint(endpoint('a', a, { apiKey: 'sk-secret-123' }));
    expect(dead).toMatchObject({ ok: false, servedModels: [], modelServed: false });
    expect(dead.error).toMatch(/127\.0\.0\.1/);
    expect(dead.error).not.toContain('sk-secret-123');
  });
});

describe('ModelRuntime with endpoints in settings', () => {
  it('serves the role from a pool over them, follows changes (closing the old pool) and reports each endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polyhop-endpoint-runtime-'));
    const settings = new SettingsStore(join(dir, 'settings.json'));
    const runtime = new ModelRuntime(settings);
    try {
      settings.update({ endpoints: [endpoint('a', a, { apiKey: 'sk-x' })] });
      expect(runtime.endpointStatus()).toEqual([
        {
          id: 'a',
          role: 'generation',
          baseUrl: a.baseUrl,
          model: 'tiny-llama',
          hasApiKey: true,
          concurrency: 1,
          health: 'unknown',
          servedModel: null,
          inFlight: 0,
          calls: 0,
          failures: 0,
          lastError: null,
        },
      ]);
      const first = await runtime.generation();
      expect(first).toBeInstanceOf(PooledLlm);
      expect(await runtime.generation()).toBe(first);
      await first!.generateText(prompt('x'), { maxTokens: 2 });
      expect(runtime.endpointStatus()).toMatchObject([{ id: 'a', health: 'up', servedModel: 'tiny-llama', calls: 1 }]);

      settings.update({ endpoints: [endpoint('b', b)] });
      const second = await runtime.generation();
      expect(second).not.toBe(first);
      await expect(first!.generateText(prompt('x'), { maxTokens: 2 })).rejects.toThrow(/pool was closed/);
      await second!.generateText(prompt('x'), { maxTokens: 2 });
      expect(runtime.endpointStatus()).toMatchObject([{ id: 'b', health: 'up', calls: 1 }]);

      settings.update({ endpoints: [] });
      expect(await runtime.generation()).toBeNull();
      await expect(second!.generateText(prompt('x'), { maxTokens: 2 })).rejects.toThrow(/pool was closed/);
    } finally {
      await runtime.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
