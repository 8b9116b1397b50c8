import { describe, expect, it } from 'vitest';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../../src-main/engine/models/CallCache.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { MapReplySchema } from '../../../src-main/engine/mder/mapChunk.js';
import { SamplingLlm } from '../mder/support/SamplingLlm.js';

const prompt = (chunk: string): RenderedPrompt => ({
  name: 'mder/map',
  version: '1',
  system: 'sys',
  user: chunk,
  variables: { chunk },
});

const triple = {
  subject: 'Penelope',
  subjectType: 'Person',
  relation: 'wife of',
  object: 'Odysseus',
  objectType: 'Person',
};

describe('empty single-item replies', () => {
  it('are not cached, and the call is asked again with other sampling', async () => {
    // Greedy, this model writes an empty list for the chunk (as small models do); sampled, it finds the triple.
    const inner = new SamplingLlm([
      { prompt: 'mder/map', reply: (_v, s) => ({ triples: s.temperature === 0 ? [] : [triple] }) },
    ]);
    const store = new MemoryCallCacheStore();
    const llm = new CachingLlm(inner, { store });
    const reply = await llm.generateJson(prompt('Penelope is the wife of Odysseus.'), MapReplySchema);
    expect(reply.value.triples).toEqual([triple]);
    const calls = inner.callsOf('mder/map');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ temperature: 0, seed: undefined });
    expect(calls[1]!.temperature).toBeGreaterThan(0);
    expect(calls[1]!.seed).toBeDefined();
    // The useful reply is the one kept: a repeat is a hit.
    const again = await llm.generateJson(prompt('Penelope is the wife of Odysseus.'), MapReplySchema);
    expect(again.usage.cached).toBe(true);
    expect(again.value.triples).toEqual([triple]);
  });

  it('a reply empty under every sampling is returned but not kept, so the next run asks again', async () => {
    const inner = new SamplingLlm([{ prompt: 'mder/map', reply: () => ({ triples: [] }) }]);
    const store = new MemoryCallCacheStore();
    const llm = new CachingLlm(inner, { store });
    const first = await llm.generateJson(prompt('Nothing here.'), MapReplySchema);
    expect(first.value.triples).toEqual([]);
    expect(store.size).toBe(0);
    await llm.generateJson(prompt('Nothing here.'), MapReplySchema);
    expect(inner.callsOf('mder/map')).toHaveLength(4);
  });

  it('an empty text reply is not cached', async () => {
    const inner = new SamplingLlm([
      { prompt: 'test/text', reply: (_v, s) => (s.seed === undefined ? '' : 'an answer') },
    ]);
    const store = new MemoryCallCacheStore();
    const llm = new CachingLlm(inner, { store });
    const p: RenderedPrompt = { name: 'test/text', version: '1', system: 's', user: 'u', variables: {} };
    expect((await llm.generateText(p)).text).toBe('');
    expect(store.size).toBe(0);
    expect((await llm.generateText(p, { seed: 3, temperature: 0.5 })).text).toBe('an answer');
    expect(store.size).toBe(1);
  });
});
