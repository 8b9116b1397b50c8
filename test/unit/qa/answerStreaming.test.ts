import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StrategyName } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../../src-main/engine/models/CallCache.js';
import type { Llm } from '../../../src-main/engine/models/Llm.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

/** What the asker sees while the answer streams (as the Ask screen applies `qa:token` events), and every chunk. */
function watcher() {
  const seen = { view: '', chunks: [] as string[], restarts: 0, viewsAtRestart: [] as string[] };
  return {
    seen,
    options: {
      onTextChunk: (text: string) => {
        seen.chunks.push(text);
        seen.view += text;
      },
      onTextRestart: () => {
        seen.restarts++;
        seen.viewsAtRestart.push(seen.view);
        seen.view = '';
      },
    },
  };
}

const askWith = (llm: Llm | null, strategy: StrategyName, options: object, overrides: Record<string, number> = {}) =>
  ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) }, WIFE_OF_KING.it, {
    strategy,
    ...options,
  });

describe('the final answer streams as the model writes it', () => {
  it.each(['dr', 'hyp', 'dapt', 'vector', 'llm-only'] as StrategyName[])(
    '%s: the explained answer grows chunk by chunk, with none of the JSON around it',
    async (strategy) => {
      const { seen, options } = watcher();
      const answer = await askWith(new ScriptedLlm(qaRules()), strategy, options);
      expect(answer.text).toMatch(/Penelope/);
      expect(seen.chunks.length).toBeGreaterThan(3);
      expect(seen.view).toBe(answer.text);
      expect(seen.restarts).toBe(0);
      // Nothing of the reply's JSON (keys, quotes, the short answer's field) reaches the asker.
      expect(seen.chunks.join('')).not.toMatch(/"answer"|"short"|^\{/);
    },
  );

  it('a reply cut by the budget and retried restarts the stream: the answer is never shown twice', async () => {
    const llm = new UncooperativeLlm(new ScriptedLlm(qaRules()), { seed: 3, degrade: () => false });
    const { seen, options } = watcher();
    const answer = await askWith(llm, 'dr', options, { 'shared.answerMaxTokens': 12 });
    expect(llm.count('cutAtMaxTokens', 'qa/answer')).toBe(1);
    expect(answer.text.length).toBeGreaterThan(0);
    expect(seen.restarts).toBe(1);
    expect(seen.viewsAtRestart[0]!.trim()).toBe(answer.text); // the first attempt streamed it once…
    expect(seen.view.trim()).toBe(answer.text); // …and after the restart the retry did, in its place
    expect(seen.chunks.join('').trim()).not.toBe(answer.text); // (without the restart it would read twice)
  });

  it('an answer from the call cache streams decoded, not as raw JSON', async () => {
    const llm = new CachingLlm(new ScriptedLlm(qaRules()), { store: new MemoryCallCacheStore() });
    await askWith(llm, 'dr', {});
    const { seen, options } = watcher();
    const answer = await askWith(llm, 'dr', options);
    expect(answer.usage.cacheHits).toBe(answer.usage.llmCalls);
    expect(seen.view).toBe(answer.text);
    expect(seen.view).not.toMatch(/"answer"|"short"|^\{/);
  });

  it('retrieval only: the ranked list is what streams', async () => {
    const { seen, options } = watcher();
    const answer = await askWith(null, 'dr', options);
    expect(answer.retrievalOnly).toBe(true);
    expect(seen.view).toBe(answer.text);
  });
});
