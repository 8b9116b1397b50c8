import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reduceUnit, type ReduceEntity } from '../../../src-main/engine/mder/reduceEntities.js';
import { PromptLibrary } from '../../../src-main/engine/models/PromptLibrary.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { reduceBlocks } from '../../support/corpusScript.js';

const prompts = new PromptLibrary(join(import.meta.dirname, '../../../prompts'));

/** Input budget of the hub's calls: small, so a few long facts make a hub. */
const BUDGET = 200;

/** A long fact about the k-th landing (about 55 Qwen3 tokens: three fit the budget, four do not); `times` copies of it for a longer one. */
const fact = (k: number, times = 1): string =>
  Array.from(
    { length: times },
    () =>
      `Odysseus landed at Harbour ${k} on the long voyage home from Troy, traded bronze with the people there, rested his tired crew for many days and asked the elders for the way to Ithaca, and sailed on at dawn with the wind behind him.`,
  ).join(' ');

const hub = (facts: string[]): ReduceEntity => ({ id: 7, name: 'Odysseus', type: 'Person', facts });

/** Which part of the facts a reduce prompt asks about, as its `Part:` line writes it ('final' for the summary). */
const partOf = (entities: string): string => /^Part: (.+?) \(/m.exec(entities)?.[1] ?? 'final';

/** A reduce model: `partial` writes a partial summary (null: an empty one, which fails the schema); the final summary is short. */
function reduceModel(partial: (lines: string[], part: string) => string | null): ScriptRule {
  return {
    prompt: 'mder/reduce',
    reply: (v) => ({
      summaries: reduceBlocks(v.entities!).map((b) => ({
        id: b.id,
        name: b.name,
        summary: b.part ? (partial(b.facts, partOf(v.entities!)) ?? '') : `${b.name} landed at many harbours.`,
      })),
    }),
  };
}

describe('a hub entity summarised in levels of partial summaries', () => {
  it('stops at the level cap with a model that restates its lines instead of summarising them', async () => {
    // Each fact is over half the budget, so each is a group of its own, and a restated fact is as long.
    const llm = new ScriptedLlm([reduceModel((lines) => lines.join(' '))]);
    const facts = [1, 2, 3].map((k) => fact(k, 2));
    expect(llm.countTokens(facts[0]!)).toBeGreaterThan(BUDGET / 2);
    const result = await reduceUnit(llm, { kind: 'hub', entity: hub(facts) }, { prompts, maxInputTokens: BUDGET });
    const parts = llm.callsOf('mder/reduce').map((c) => partOf(c.prompt.variables.entities!));
    // Level 0 over the facts, levels 1–5 over partial summaries (6 levels), then the summary of what is left.
    expect(parts.filter((p) => p.startsWith('facts'))).toHaveLength(3);
    expect(parts.filter((p) => p.startsWith('partial summaries'))).toHaveLength(5 * 3);
    expect(parts.at(-1)).toBe('final');
    expect(parts).toHaveLength(6 * 3 + 1);
    expect(result.summaries.get(7)).toBe('Odysseus landed at many harbours.');
    expect(result.misses).toEqual([]);
  });

  it('a group of facts that got no partial summary is asked again in two halves', async () => {
    // Three facts to a group; the model writes nothing for the first group whole, but does for its halves.
    const llm = new ScriptedLlm([
      reduceModel((lines, part) => (part === 'facts 1–3 of 6' ? null : `Odysseus landed ${lines.length} times.`)),
    ]);
    const facts = [1, 2, 3, 4, 5, 6].map((k) => fact(k));
    const result = await reduceUnit(llm, { kind: 'hub', entity: hub(facts) }, { prompts, maxInputTokens: BUDGET });
    expect(llm.callsOf('mder/reduce').map((c) => partOf(c.prompt.variables.entities!))).toEqual([
      'facts 1–3 of 6',
      'facts 4–6 of 6',
      'facts 1–2 of 6',
      'facts 3–3 of 6',
      'final',
    ]);
    expect(result.misses).toEqual([]);
    expect(result.partials.get(7)!.map((p) => `${p.firstFact}–${p.lastFact}`)).toEqual(['1–2', '3–3', '4–6']);
  });

  it('a group of one fact that got no partial summary leaves the entity incomplete', async () => {
    // Each fact is a group of its own; the model writes nothing for the second.
    const llm = new ScriptedLlm([
      reduceModel((lines, part) => (part === 'facts 2–2 of 3' ? null : `Odysseus landed ${lines.length} times.`)),
    ]);
    const facts = [1, 2, 3].map((k) => fact(k, 2));
    const result = await reduceUnit(llm, { kind: 'hub', entity: hub(facts) }, { prompts, maxInputTokens: BUDGET });
    expect(result.misses).toHaveLength(1);
    expect(result.misses[0]).toMatchObject({ id: 7, reason: expect.stringMatching(/^facts 2–2 of 3 /) });
    expect(result.partials.get(7)!.map((p) => `${p.firstFact}–${p.lastFact}`)).toEqual(['1–1', '3–3']);
    expect(result.summaries.get(7)).toBe('Odysseus landed at many harbours.');
  });
});
