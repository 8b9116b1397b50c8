import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../../src-main/engine/models/CallCache.js';
import { JsonStringFieldStream } from '../../../src-main/engine/models/JsonStringFieldStream.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { UsageMeter } from '../../../src-main/engine/models/UsageMeter.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

const prompt = (user: string, version = '1'): RenderedPrompt => ({
  name: 'test/echo',
  version,
  system: 'sys',
  user,
  variables: { user },
});

function setup() {
  const inner = new ScriptedLlm([{ prompt: 'test/echo', reply: (v) => ({ echo: v.user }) }], {
    identity: 'scripted:a',
  });
  const store = new MemoryCallCacheStore();
  const meter = new UsageMeter();
  return { inner, store, meter, llm: new CachingLlm(inner, { store, meter }) };
}

describe('CachingLlm', () => {
  it('answers a repeated call from the cache and counts the hit', async () => {
    const { inner, meter, llm } = setup();
    const schema = z.object({ echo: z.string() });
    const first = await llm.generateJson(prompt('hi'), schema);
    const second = await llm.generateJson(prompt('hi'), schema);
    expect(second.value).toEqual(first.value);
    expect(second.usage.cached).toBe(true);
    expect(second.usage.promptTokens).toBe(first.usage.promptTokens);
    expect(inner.calls).toHaveLength(1);
    expect(meter.snapshot()).toMatchObject({ calls: 1, cacheHits: 1 });
  });

  it('misses when prompt version, inputs, schema, sampling or model differ', async () => {
    const { inner, store, llm } = setup();
    const schema = z.object({ echo: z.string() });
    await llm.generateJson(prompt('hi'), schema);
    await llm.generateJson(prompt('hi', '2'), schema);
    await llm.generateJson(prompt('ho'), schema);
    await llm.generateJson(prompt('hi'), z.object({ echo: z.string().max(10) }));
    await llm.generateJson(prompt('hi'), schema, { temperature: 0.5 });
    await llm.generateText(prompt('hi'));
    const other = new CachingLlm(
      new ScriptedLlm([{ prompt: 'test/echo', reply: () => ({ echo: 'x' }) }], { identity: 'scripted:b' }),
      { store },
    );
    await other.generateJson(prompt('hi'), schema);
    expect(inner.calls).toHaveLength(6);
    expect(store.size).toBe(7);
  });

  it('streams a cached text once and keeps its stop reason', async () => {
    const { llm } = setup();
    await llm.generateText(prompt('t'));
    const chunks: string[] = [];
    const hit = await llm.generateText(prompt('t'), { onTextChunk: (c) => chunks.push(c) });
    expect(hit.usage.cached).toBe(true);
    expect(chunks).toEqual([hit.text]);
    expect(hit.stopReason).toBe('eos');
  });

  it('streams a cached JSON reply as its JSON text, which decodes to the stored answer', async () => {
    const model = new ScriptedLlm([
      { prompt: 'test/echo', reply: () => ({ short: 'Penelope', answer: 'Penelope [1], "wife" of Odysseus.' }) },
    ]);
    const answers = new CachingLlm(model, { store: new MemoryCallCacheStore() });
    const schema = z.object({ answer: z.string(), short: z.string() });
    await answers.generateJson(prompt('j'), schema);
    const chunks: string[] = [];
    const hit = await answers.generateJson(prompt('j'), schema, { onTextChunk: (c) => chunks.push(c) });
    expect(hit.usage.cached).toBe(true);
    expect(model.calls).toHaveLength(1);
    let decoded = '';
    const field = new JsonStringFieldStream('answer', (t) => (decoded += t));
    for (const c of chunks) field.write(c);
    expect(decoded).toBe(hit.value.answer);
  });

  it('records into nested scopes (job inside app)', async () => {
    const { meter, llm } = setup();
    const job = meter.child();
    const jobLlm = llm.withMeter(job);
    const before = job.snapshot();
    await jobLlm.generateText(prompt('a'));
    await jobLlm.generateText(prompt('a'));
    await llm.generateText(prompt('b'));
    expect(job.since(before)).toMatchObject({ calls: 1, cacheHits: 1 });
    expect(meter.snapshot()).toMatchObject({ calls: 2, cacheHits: 1 });
    expect(meter.snapshot().promptTokens).toBeGreaterThan(0);
  });

  it('treats a damaged cache entry as a miss', async () => {
    const { inner, store, llm } = setup();
    const key = llm.keyFor('text', prompt('z'));
    store.put(key, '{not json');
    await llm.generateText(prompt('z'));
    expect(inner.calls).toHaveLength(1);
  });
});
