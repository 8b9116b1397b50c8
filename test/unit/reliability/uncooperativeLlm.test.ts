import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { DEFAULT_RATES, UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { qwen3CountTokens } from '../../support/qwen3Tokens.js';
import { NAME_VARIANTS } from '../../support/corpusScript.js';

const prompt = (name: string, user = 'question'): RenderedPrompt => ({
  name,
  version: '1',
  system: 'system',
  user,
  variables: {},
});

const Batch = z.object({ items: z.array(z.object({ id: z.number(), name: z.string(), text: z.string() })) });
const Fixed = z.object({ items: z.array(z.string().min(1)).length(4) });
const Triples = z.object({
  triples: z.array(z.object({ subject: z.string(), relation: z.string(), object: z.string() })),
});

const items = Array.from({ length: 6 }, (_, i) => ({ id: i + 1, name: 'Odysseus', text: `Odysseus fact ${i + 1}.` }));
const inner = () =>
  new ScriptedLlm([
    { prompt: 'batch', reply: () => ({ items }) },
    { prompt: 'fixed', reply: () => ({ items: ['a.', 'b.', 'c.', 'd.'] }) },
    { prompt: 'triples', reply: () => ({ triples: [{ subject: '?x', relation: 'SON_OF', object: 'Odysseus' }] }) },
    { prompt: 'answer', reply: () => 'Penelope was the wife of Odysseus [1]. '.repeat(40) },
  ]);

/** The degradations that end a call without a reply (errors, loops cut at maxTokens) off: these tests look at replies. */
const REPLYING = { runtimeError: 0, repetitionLoop: 0 };

describe('UncooperativeLlm', () => {
  it('degrades batches and strings over seeds, every reply passing its schema', async () => {
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const llm = new UncooperativeLlm(inner(), { seed, nameVariants: NAME_VARIANTS, rates: REPLYING });
      const batch = (await llm.generateJson(prompt('batch'), Batch, { maxTokens: 4000 })).value;
      expect(Batch.safeParse(batch).success).toBe(true);
      const fixed = (await llm.generateJson(prompt('fixed'), Fixed, { maxTokens: 4000 })).value;
      expect(fixed.items).toHaveLength(4);
      const triples = (await llm.generateJson(prompt('triples'), Triples, { maxTokens: 4000 })).value;
      for (const t of triples.triples) expect(['?x', 'x', '[x]', '<x>', '?', 'unknown']).toContain(t.subject);
      for (const d of llm.degradations) kinds.add(d.kind);
    }
    for (const kind of [
      'dropItem',
      'repeatItem',
      'swapItems',
      'foreignName',
      'typeSuffix',
      'placeholder',
      'gluedCitation',
      'reasoningPrefix',
      'longString',
      'emptyString',
      'thinking',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it('is reproducible per seed', async () => {
    const run = async (seed: number) => {
      const llm = new UncooperativeLlm(inner(), { seed, nameVariants: NAME_VARIANTS, rates: REPLYING });
      return JSON.stringify((await llm.generateJson(prompt('batch'), Batch, { maxTokens: 4000 })).value);
    };
    expect(await run(7)).toBe(await run(7));
  });

  it('never drops an item the schema requires: a fixed-length batch is only reordered or repeated', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const llm = new UncooperativeLlm(inner(), { seed, rates: { ...REPLYING, dropItem: 1 } });
      expect((await llm.generateJson(prompt('fixed'), Fixed, { maxTokens: 4000 })).value.items).toHaveLength(4);
      expect(llm.count('dropItem')).toBe(0);
    }
  });

  it('cuts output at maxTokens, counted with a real tokenizer', async () => {
    const llm = new UncooperativeLlm(inner(), { seed: 1, degrade: () => false });
    const text = await llm.generateText(prompt('answer'), { maxTokens: 25 });
    expect(text.stopReason).toBe('maxTokens');
    expect(countTokens(text.text)).toBeLessThanOrEqual(25);
    expect(text.usage.completionTokens).toBe(25);
    await expect(llm.generateJson(prompt('batch'), Batch, { maxTokens: 20 })).rejects.toMatchObject({
      code: 'LLM_OUTPUT_INVALID',
      details: { reason: 'stopped at maxTokens' },
    });
    expect((await llm.generateJson(prompt('batch'), Batch, { maxTokens: 200 })).value.items).toEqual(items);
  });

  it('refuses a prompt larger than its context and shrinks the budget to what is left', async () => {
    const llm = new UncooperativeLlm(inner(), { seed: 1, contextTokens: 300, degrade: () => false });
    await expect(llm.generateText(prompt('answer', 'word '.repeat(400)), { maxTokens: 10 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
    const near = await llm.generateText(prompt('answer', 'word '.repeat(250)), { maxTokens: 1000 });
    expect(near.stopReason).toBe('maxTokens');
    expect(countTokens(near.text)).toBeLessThanOrEqual(300 - 250);
  });

  it('reasons as node-llama-cpp does under LlamaCppLlm: the thought has its own budget, the answer keeps maxTokens', async () => {
    // Only a thinking model's reasoning, on every call (the other degradations off).
    const onlyThinking = Object.fromEntries(Object.keys(DEFAULT_RATES).map((k) => [k, k === 'thinking' ? 1 : 0]));
    const exact = qwen3CountTokens(JSON.stringify({ items }));
    for (let seed = 1; seed <= 10; seed++) {
      const llm = new UncooperativeLlm(inner(), { seed, rates: onlyThinking });
      // JSON: the thought runs before the grammar, the answer under it with maxTokens of its own.
      const json = await llm.generateJson(prompt('batch'), Batch, { maxTokens: exact });
      expect(json.value.items, `seed ${seed}`).toEqual(items);
      const thought = json.usage.completionTokens - exact;
      expect(thought, `seed ${seed}`).toBeGreaterThanOrEqual(40);
      // The thought is capped by the call's reasoning budget.
      const capped = await llm.generateJson(prompt('batch'), Batch, { maxTokens: exact, reasoningTokens: 30 });
      expect(capped.usage.completionTokens, `seed ${seed}`).toBe(exact + 30);
      // Text: one generation of maxTokens = answer + thought budget, the thought closed at its
      // budget: the answer gets what the thought left of that budget, never less than maxTokens.
      const text = await llm.generateText(prompt('answer'), { maxTokens: 25 });
      expect(qwen3CountTokens(text.text), `seed ${seed}`).toBeGreaterThan(25);
      const short = await llm.generateText(prompt('answer'), { maxTokens: 25, reasoningTokens: 30 });
      expect(short.stopReason, `seed ${seed}`).toBe('maxTokens');
      expect(qwen3CountTokens(short.text), `seed ${seed}`).toBe(25);
      expect(short.usage.completionTokens, `seed ${seed}`).toBe(25 + 30);
    }
    // With no room beside the answer, there is no thought: the answer has all the context left.
    const tight = new UncooperativeLlm(inner(), { seed: 1, rates: onlyThinking, contextTokens: 300 });
    const full = await tight.generateJson(prompt('batch', 'word '.repeat(300 - exact - 20)), Batch, {
      maxTokens: 4000,
    });
    expect(full.value.items).toEqual(items);
    expect(full.usage.completionTokens).toBe(exact);
    expect(tight.count('thinking')).toBe(0);
  });

  it('reads degraded names back as the name they stand for', () => {
    const llm = new UncooperativeLlm(inner(), { seed: 1, nameVariants: NAME_VARIANTS });
    expect(llm.resolveName('Ulisse (Person)')).toBe('Odysseus');
    expect(llm.resolveName('Ithaca (Island)')).toBe('Ithaca');
    expect(llm.resolveName('Telémaco')).toBe('Telemachus');
  });
});
