import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CancelledError, type PolyhopError } from '../../src-main/engine/base/errors.js';
import { CachingLlm } from '../../src-main/engine/models/CachingLlm.js';
import { JsonStringFieldStream } from '../../src-main/engine/models/JsonStringFieldStream.js';
import { MemoryCallCacheStore } from '../../src-main/engine/models/CallCache.js';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import type { RenderedPrompt } from '../../src-main/engine/models/Llm.js';
import { UsageMeter } from '../../src-main/engine/models/UsageMeter.js';
import { jsonStringField } from '../../src-main/engine/qa/synthesis.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';

const prompt = (user: string): RenderedPrompt => ({
  name: 'test/tiny',
  version: '1',
  system: 'Reply with JSON only.',
  user,
  variables: { user },
});

// Bounded strings, arrays and an integer range: a random-weight model never chooses to stop on
// its own, so the grammar has to close every value.
const itemSchema = z.object({
  name: z.string().min(1).max(12),
  kind: z.enum(['person', 'place', 'thing']),
  tags: z.array(z.string().max(6)).max(3),
  details: z.object({
    rank: z.number().int().min(0).max(9),
    confirmed: z.boolean(),
    note: z.string().max(5).optional(),
  }),
  parts: z.array(z.object({ label: z.enum(['a', 'b']), weight: z.number().int().min(1).max(3) })).max(2),
});

describe('LlamaCppLlm on the generated tiny llama (threads: 1)', () => {
  let llm: LlamaCppLlm;

  beforeAll(async () => {
    llm = await LlamaCppLlm.create({
      path: await tinyLlamaPath(),
      threads: 1,
      sequences: 4,
      contextSize: 1024,
      gpu: false,
    });
  });
  afterAll(async () => {
    await llm?.dispose();
  });

  it('loads and reports how', () => {
    const s = llm.status();
    expect(s).toMatchObject({
      role: 'generation',
      backend: 'cpu',
      gpuLayers: 0,
      totalLayers: 3,
      sequences: 4,
      threads: 1,
      contextSize: 1024,
    });
    expect(s.explanation).toMatch(/CPU/);
    expect(llm.identity).toMatch(/^llama\.cpp:tiny-llama-.*\.gguf:[0-9a-f]{16}$/);
    expect(llm.parallelism).toBe(4);
    expect(llm.countTokens('hello world')).toBeGreaterThan(5);
  });

  it('returns schema-valid JSON in 10 of 10 runs', async () => {
    const values: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const { value, usage } = await llm.generateJson(prompt(`Describe item ${i}.`), itemSchema, { maxTokens: 300 });
      expect(itemSchema.safeParse(value).success).toBe(true);
      expect(usage.promptTokens).toBeGreaterThan(10);
      expect(usage.completionTokens).toBeGreaterThan(10);
      values.push(value);
    }
    expect(new Set(values.map((v) => JSON.stringify(v))).size).toBeGreaterThan(1);
  });

  it('streams text chunks that add up to the result', async () => {
    const chunks: string[] = [];
    const result = await llm.generateText(prompt('Say something.'), {
      maxTokens: 40,
      onTextChunk: (c) => chunks.push(c),
    });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.join('')).toBe(result.text);
    expect(result.usage.completionTokens).toBeLessThanOrEqual(40);
    expect(result.stopReason).toBe('maxTokens');
  });

  it('streams the raw JSON of a JSON call: the answer field decoded from the chunks is the parsed one, in either field order', async () => {
    // Both fields bounded, so the grammar closes the reply (the model never stops on its own).
    const orders = [
      z.object({ answer: z.string().max(60), short: z.string().max(12) }),
      z.object({ short: z.string().max(12), answer: z.string().max(60) }),
    ];
    for (const [i, schema] of orders.entries()) {
      const chunks: string[] = [];
      let decoded = '';
      const field = new JsonStringFieldStream('answer', (t) => (decoded += t));
      const { value } = await llm.generateJson(prompt(`Answer ${i}.`), schema, {
        maxTokens: 300,
        onTextChunk: (c) => {
          chunks.push(c);
          field.write(c);
        },
      });
      expect(chunks.length).toBeGreaterThan(5);
      expect(JSON.parse(chunks.join(''))).toEqual(value);
      expect(decoded).toBe(value.answer);
    }
  });

  it('restarts the stream of a JSON reply cut by maxTokens before its retry', async () => {
    const schema = z.object({ answer: z.string(), short: z.string().max(12) });
    let restarts = 0;
    let decoded = '';
    let field = new JsonStringFieldStream('answer', (t) => (decoded += t));
    const error = (await llm
      .generateJson(prompt('Cut short.'), schema, {
        maxTokens: 16,
        onTextChunk: (c) => field.write(c),
        onTextRestart: () => {
          restarts++;
          decoded = '';
          field = new JsonStringFieldStream('answer', (t) => (decoded += t));
        },
      })
      .catch((e: unknown) => e)) as PolyhopError;
    expect(error).toMatchObject({ code: 'LLM_OUTPUT_INVALID' });
    expect(restarts).toBe(1);
    // What streamed after the restart is the retry's answer so far, which the final step keeps.
    expect(decoded.length).toBeGreaterThan(0);
    expect(decoded).toBe(jsonStringField(String(error.details.raw), 'answer', false));
  });

  it('is deterministic at temperature 0', async () => {
    const a = await llm.generateText(prompt('Same input.'), { maxTokens: 24 });
    const b = await llm.generateText(prompt('Same input.'), { maxTokens: 24 });
    expect(b.text).toBe(a.text);
  });

  it('aborts mid-generation with a CancelledError, quickly', async () => {
    const ac = new AbortController();
    let chunks = 0;
    const started = performance.now();
    const call = llm.generateText(prompt('Go on forever.'), {
      maxTokens: 20_000,
      signal: ac.signal,
      onTextChunk: () => {
        if (++chunks === 5) ac.abort();
      },
    });
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    expect(chunks).toBeLessThan(50);
    expect(performance.now() - started).toBeLessThan(5000);
    // The sequence went back to the pool: the model still answers.
    await expect(llm.generateText(prompt('After abort.'), { maxTokens: 4 })).resolves.toBeTruthy();
  });

  it('rejects an already-aborted call without using a sequence', async () => {
    await expect(llm.generateText(prompt('x'), { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(CancelledError);
  });

  it('runs more concurrent calls than sequences, all completing', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? llm.generateJson(prompt(`c${i}`), itemSchema, { maxTokens: 300 })
          : llm.generateText(prompt(`c${i}`), { maxTokens: 30 }),
      ),
    );
    expect(results).toHaveLength(10);
    for (const r of results) expect(r.usage.completionTokens).toBeGreaterThan(0);
  });

  it('with CachingLlm, a second run makes zero model calls', async () => {
    const store = new MemoryCallCacheStore();
    const meter = new UsageMeter();
    const cached = new CachingLlm(llm, { store, meter });
    const run = () =>
      Promise.all([
        cached.generateJson(prompt('cache 1'), itemSchema, { maxTokens: 300 }),
        cached.generateJson(prompt('cache 2'), itemSchema, { maxTokens: 300 }),
        cached.generateText(prompt('cache 3'), { maxTokens: 20 }),
      ]);
    const first = await run();
    expect(meter.snapshot()).toMatchObject({ calls: 3, cacheHits: 0 });
    const second = await run();
    expect(meter.snapshot()).toMatchObject({ calls: 3, cacheHits: 3 });
    expect(second.map((r) => ('value' in r ? r.value : r.text))).toEqual(
      first.map((r) => ('value' in r ? r.value : r.text)),
    );
    expect(second.every((r) => r.usage.cached)).toBe(true);
  });

  it('refuses a prompt longer than the context', async () => {
    await expect(llm.generateText(prompt('word '.repeat(2000)), { maxTokens: 4 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
  });
});
