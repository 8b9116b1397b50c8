import { describe, expect, it } from 'vitest';
import { askInBatches } from '../../../src-main/engine/mder/askInBatches.js';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../../src-main/engine/models/CallCache.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

/**
 * A batched reply that left an item without its own entry (the grammar wants one per item, so the
 * model wrote another item's twice) is cached; the item is asked again in a prompt of its own, so
 * the retry has its own cache key and is never answered with the cached batch. A single-item reply
 * with no entry fails its schema and is not cached: a re-run asks again instead of replaying it.
 */
const ITEMS = ['Odysseus', 'Penelope', 'Telemachus'];
const render = (items: readonly string[]): RenderedPrompt => {
  const list = items.map((x, i) => `${i + 1}. ${x}`).join('\n');
  return { name: 'test/describe', version: '1', system: 'Describe each item.', user: list, variables: { list } };
};
/** Skips Penelope whenever she is asked with others, as a small model drops an item from a batch; `alone` decides her answer when asked on her own. */
const model = (alone: 'answers' | 'skips') =>
  new ScriptedLlm([
    {
      prompt: 'test/describe',
      reply: (v) => {
        const names = v.list!.split('\n').map((l) => l.replace(/^\d+\. /, ''));
        const skip = (name: string): boolean => name === 'Penelope' && (names.length > 1 || alone === 'skips');
        const entries = names.flatMap((name, i) =>
          skip(name) ? [] : [{ id: i + 1, name, description: `About ${name}.` }],
        );
        // Under a grammar that wants one entry per item, a skipped item becomes a repeated one.
        return {
          descriptions: entries.length > 0 && entries.length < names.length ? [...entries, entries.at(-1)] : entries,
        };
      },
    },
  ]);
const ask = (llm: CachingLlm) =>
  askInBatches(llm, {
    items: ITEMS,
    render,
    listKey: 'descriptions',
    textKey: 'description',
    keyField: 'name',
    keyOf: (x) => x,
    maxTokens: () => 256,
    maxItemsPerCall: 8,
  });

describe('the call cache and batched replies that skipped items', () => {
  it('caches the incomplete batch and the retry apart: the retry is asked, and a re-run repeats neither', async () => {
    const inner = model('answers');
    const store = new MemoryCallCacheStore();
    const first = await ask(new CachingLlm(inner, { store }));
    expect(first.texts).toEqual(['About Odysseus.', 'About Penelope.', 'About Telemachus.']);
    expect(inner.callCount).toBe(2); // the batch, then Penelope on her own (not served the cached batch)
    expect(store.size).toBe(2);

    const again = await ask(new CachingLlm(inner, { store }));
    expect(again.texts).toEqual(first.texts);
    expect(again.usage.cached).toBe(true);
    expect(inner.callCount).toBe(2);
  });

  it('does not cache a retry the model answered with nothing: a re-run asks it again', async () => {
    const inner = model('skips');
    const store = new MemoryCallCacheStore();
    const first = await ask(new CachingLlm(inner, { store }));
    expect(first.texts).toEqual(['About Odysseus.', null, 'About Telemachus.']);
    expect(first.misses).toEqual([{ index: 1, reason: expect.stringMatching(/schema/) }]);
    expect(store.size).toBe(1); // the batch only
    const again = await ask(new CachingLlm(inner, { store }));
    expect(again.misses).toEqual(first.misses);
    expect(inner.callCount).toBe(3); // the batch from the cache, Penelope asked again
  });
});
