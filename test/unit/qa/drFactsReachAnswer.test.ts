import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zodJsonSchema } from '../../../src-main/engine/models/grammarSchema.js';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ResolutionSchema } from '../../../src-main/engine/qa/dr/DrStrategy.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

/**
 * Decompose–Resolve with the replies a small model gives that lose facts on the way to the
 * answer: a triple without a placeholder, a value with no citation, a value misspelled.
 * The similarity top-up is off so only what resolution kept reaches the answer.
 */

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

function run(rules: ScriptRule[], question: string): Promise<{ answer: Answer; llm: ScriptedLlm }> {
  const llm = new ScriptedLlm([...rules, ...qaRules()]);
  const settings = resolveQaSettings({ 'dr.similarityTopUp': 0 });
  return ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings }, question, { strategy: 'dr' }).then(
    (answer) => ({ answer, llm }),
  );
}

const decomposition = (triples: { subject: string; relation: string; object: string }[]): ScriptRule => ({
  prompt: 'qa/dr-decompose',
  reply: () => ({ triples }),
});
const resolves = (a: Answer): Record<string, unknown>[] =>
  a.trace.filter((s) => s.step === 'resolve').map((s) => s.detail as Record<string, unknown>);
const summaries = (a: Answer): string[] => a.evidence.filter((e) => e.kind === 'summary').map((e) => e.label);

describe('dr: facts reach the answer', () => {
  it('anchors retrieval on a triple that has no placeholder', async () => {
    const { answer } = await run(
      [decomposition([{ subject: 'Odysseus', relation: 'MARRIED_TO', object: 'Penelope' }])],
      'Was Penelope the wife of Odysseus?',
    );
    expect(summaries(answer)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Odysseus/), expect.stringMatching(/^Penelope/)]),
    );
    const anchor = answer.trace.find((s) => s.step === 'anchor')!.detail as {
      terms: { term: string; entity: string | null }[];
    };
    expect(anchor.terms.map((t) => [t.term, t.entity])).toEqual([
      ['Odysseus', 'Odysseus'],
      ['Penelope', 'Penelope'],
    ]);
  });

  it('keeps the summary that stated a value the model did not cite, and grounds no phrase in the nearest entity', async () => {
    const uncited: ScriptRule = {
      prompt: 'qa/dr-resolve',
      reply: () => ({ reasoning: 'the summary says how long', value: 'twenty years', supporting: [] }),
    };
    const { answer } = await run(
      [decomposition([{ subject: 'Penelope', relation: 'WAITED_FOR', object: '?X' }]), uncited],
      'How long did Penelope wait for Odysseus?',
    );
    const [step] = resolves(answer);
    expect(step!.value).toBe('twenty years');
    expect(step!.grounded).toEqual([]);
    // The summaries that say it (Penelope's, Odysseus's), not the nearest name "Ten Years".
    expect(summaries(answer)).toContain('Penelope (Person)');
    expect(answer.evidence.every((e) => /twenty years/.test(e.text))).toBe(true);
  });

  it("propagates the KB name of a misspelled value, not the model's spelling", async () => {
    // The king hop answered with a misspelling and no citation, as small models write names they saw once.
    const misspells: ScriptRule = {
      prompt: 'qa/dr-resolve',
      when: (v) => v.triple!.includes('HAS_KING'),
      reply: () => ({ reasoning: 'the summary of Ithaca names its king', value: 'Odysseas', supporting: [] }),
    };
    const { answer } = await run([misspells], WIFE_OF_KING.en);
    const steps = resolves(answer);
    expect(steps.map((r) => [r.anchor, r.value])).toEqual([
      ['Ithaca', 'Odysseus'],
      ['Odysseus', 'Penelope'],
    ]);
    expect(steps[0]!.written).toBe('Odysseas');
    // Uncited, the value's evidence is every summary naming a word spelled close to it ("Odysseus"), not only the first.
    expect(steps[0]!.uncited).toEqual(expect.arrayContaining(['Ithaca (Island)', 'Laertes (Person)']));
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('finds the anchor by its alias before nearest names', async () => {
    const { answer } = await run(
      [decomposition([{ subject: 'Pénélope', relation: 'HAS_FATHER', object: '?X' }])],
      'Who was the father of Pénélope?',
    );
    const [step] = resolves(answer);
    expect((step!.candidates as { name: string; score: number }[])[0]).toEqual({
      id: expect.any(Number),
      name: 'Penelope',
      score: 1,
    });
  });

  it('bounds the reasoning of the resolve reply in its schema (and so in the grammar)', () => {
    const json = zodJsonSchema(ResolutionSchema).json as { properties: { reasoning: { maxLength?: number } } };
    expect(json.properties.reasoning.maxLength).toBeGreaterThan(0);
    expect(ResolutionSchema.safeParse({ reasoning: 'so '.repeat(2000), value: null, supporting: [] }).success).toBe(
      false,
    );
  });
});
