import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { DEFAULT_RATES, UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { qwen3CountTokens } from '../../support/qwen3Tokens.js';
import { NAME_VARIANTS } from '../../support/corpusScript.js';
import { batchReplySchema } from '../../../src-main/engine/mder/askInBatches.js';
import { GrammarValues } from '../../support/grammarValues.js';
import { judgeSchema } from '../../../src-main/engine/qa/hyp/HypStrategy.js';

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

  describe('the schema, as a grammar holds a local model to it or as an endpoint ignores it', () => {
    const KEYS = ['Ithaca', 'Laertes', 'Icarius', 'Telemachus'];
    // Content keys are a grammar enum that zod does not check (keyOneOf): only the grammar stops a foreign name.
    const Keyed = batchReplySchema(KEYS, 'items', 'name', 'text');
    type KeyedItem = { id: number; name: string; text: string };
    const itemsOf = (value: unknown): KeyedItem[] => (value as { items: KeyedItem[] }).items;
    const keyed = () =>
      new ScriptedLlm([
        { prompt: 'keyed', reply: () => ({ items: KEYS.map((name, i) => ({ id: i + 1, name, text: `${name}.` })) }) },
      ]);
    const names = { Ithaca: ['Itaca'], Laertes: ['Laerte'], Icarius: ['Icario'], Telemachus: ['Telemaco'] };
    const only = (rates: Record<string, number>) => ({
      ...Object.fromEntries(Object.keys(DEFAULT_RATES).map((k) => [k, 0])),
      ...rates,
    });

    it("under a grammar, a degraded content key is another item's key, never a string outside the enum", async () => {
      let wrong = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const llm = new UncooperativeLlm(keyed(), {
          seed,
          nameVariants: names,
          schema: 'grammar',
          rates: only({ foreignName: 0.5, typeSuffix: 0.5, emptyString: 0.3 }),
        });
        const { value } = await llm.generateJson(prompt('keyed'), Keyed, { maxTokens: 4000 });
        expect(new GrammarValues(Keyed).violation(value), `seed ${seed}`).toBeNull();
        for (const [k, item] of itemsOf(value).entries()) {
          expect(KEYS, `seed ${seed}`).toContain(item.name);
          if (item.name !== KEYS[k]) wrong++;
        }
        expect(llm.count('foreignName') + llm.count('typeSuffix') + llm.count('emptyString'), `seed ${seed}`).toBe(0);
        // Each wrong key is the neighbour's (or the next allowed one), noted with the item it hit.
        expect(llm.count('wrongAllowedValue')).toBe(itemsOf(value).filter((it, k) => it.name !== KEYS[k]).length);
      }
      expect(wrong).toBeGreaterThan(10);
    });

    it('under a grammar, a lenient judge never scores lower than it meant: a top score stays top', async () => {
      const Judge = judgeSchema(4);
      const meant = [2, 0, 2, 1].map((v, i) => ({ id: i + 1, directness: v, entityClarity: 2, contextRelevance: v }));
      const judge = () => new ScriptedLlm([{ prompt: 'judge', reply: () => ({ scores: meant }) }]);
      let inflated = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const llm = new UncooperativeLlm(judge(), { seed, schema: 'grammar', rates: only({ inflatedScore: 0.5 }) });
        const { value } = await llm.generateJson(prompt('judge'), Judge, { maxTokens: 4000 });
        expect(new GrammarValues(Judge).violation(value), `seed ${seed}`).toBeNull();
        for (const [k, written] of value.scores.entries())
          for (const field of ['directness', 'entityClarity', 'contextRelevance'] as const)
            expect(written[field], `seed ${seed} ${field} of ${k + 1}`).toBeGreaterThanOrEqual(meant[k]![field]);
        expect(llm.count('wrongAllowedValue'), `seed ${seed}`).toBe(0);
        inflated += llm.count('inflatedScore');
      }
      expect(inflated).toBeGreaterThan(10);
    });

    it('an endpoint that ignores the schema writes the degraded key itself (zod takes any string there)', async () => {
      const written = new Set<string>();
      for (let seed = 1; seed <= 20; seed++) {
        const llm = new UncooperativeLlm(keyed(), {
          seed,
          nameVariants: names,
          schema: 'ignored',
          rates: only({ foreignName: 0.5, typeSuffix: 0.5 }),
        });
        const { value } = await llm.generateJson(prompt('keyed'), Keyed, { maxTokens: 4000 });
        for (const item of itemsOf(value)) written.add(item.name);
        expect(llm.count('wrongAllowedValue')).toBe(0);
      }
      expect([...written].filter((n) => !KEYS.includes(n)).length).toBeGreaterThan(3);
    });

    it('reads the allowed values from the schema (enums, literals, optional and nested fields), not from key names', () => {
      const Nested = z.object({
        pairs: z.array(z.object({ pair: z.enum(['P1', 'P2']), note: z.string().optional(), n: z.literal([1, 2]) })),
        free: z.string(),
      });
      const grammar = new GrammarValues(Nested);
      const reply = { pairs: [{ pair: 'P1', n: 2 }], free: 'x' };
      expect(grammar.allowedAt(reply, ['pairs', 0, 'pair'])).toEqual(['P1', 'P2']);
      expect(grammar.allowedAt(reply, ['pairs', 0, 'n'])).toEqual([1, 2]);
      expect(grammar.allowedAt(reply, ['free'])).toBeUndefined();
      expect(grammar.allowedAt({ pairs: [{ pair: 'P1', n: 1, note: 'a' }] }, ['pairs', 0, 'note'])).toBeUndefined();
      expect(grammar.violation({ pairs: [{ pair: 'P3', n: 1 }], free: '' })).toEqual({
        path: ['pairs', 0, 'pair'],
        written: 'P3',
        allowed: ['P1', 'P2'],
      });
      expect(
        grammar.wrongButAllowed(
          {
            pairs: [
              { pair: 'P1', n: 1 },
              { pair: 'P2', n: 1 },
            ],
          },
          ['pairs', 0, 'pair'],
        ),
      ).toBe('P2');
      // A neighbour without the optional field: the next allowed value.
      const Optional = z.object({
        items: z.array(z.object({ ref: z.object({ kind: z.enum(['a', 'b']) }).optional() })),
      });
      expect(
        new GrammarValues(Optional).wrongButAllowed({ items: [{ ref: { kind: 'a' } }, {}] }, [
          'items',
          0,
          'ref',
          'kind',
        ]),
      ).toBe('b');
    });

    it('a script that writes what the grammar forbids is a test error under a grammar, a reply when the schema is ignored', async () => {
      const rules = [
        { prompt: 'keyed', reply: () => ({ items: KEYS.map((_, i) => ({ id: i + 1, name: 'Itaca', text: 'x.' })) }) },
      ];
      await expect(
        new ScriptedLlm(rules, { schema: 'grammar' }).generateJson(prompt('keyed'), Keyed, { maxTokens: 4000 }),
      ).rejects.toThrow(/grammar does not allow/);
      const { value } = await new ScriptedLlm(rules, { schema: 'ignored' }).generateJson(prompt('keyed'), Keyed, {
        maxTokens: 4000,
      });
      expect(itemsOf(value)[0]!.name).toBe('Itaca');
    });
  });
});
