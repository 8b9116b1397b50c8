import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings, type QaContext } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

/**
 * Decompose–Resolve against replies a small real model gives: placeholders spelled every which
 * way, the anchor returned as the answer, values copied with the candidate's "(Type)" label, and
 * an unresolvable hop in the middle of independent ones. Tokens counted with a real tokenizer.
 */

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

function run(rules: ScriptRule[], question = WIFE_OF_KING.en): Promise<Answer> {
  const llm = new ScriptedLlm([...rules, ...qaRules()]);
  const ctx: QaContext = { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() };
  return ask(ctx, question, { strategy: 'dr' });
}

const resolves = (a: Answer): Record<string, unknown>[] =>
  a.trace.filter((s) => s.step === 'resolve').map((s) => s.detail as Record<string, unknown>);
const decomposition = (triples: { subject: string; relation: string; object: string }[]): ScriptRule => ({
  prompt: 'qa/dr-decompose',
  reply: () => ({ triples }),
});
/** `[n] label: text` blocks of the candidates variable. */
const candidateLabels = (candidates: string): string[] =>
  [...candidates.matchAll(/^\[\d+\] ([^:]+):/gmu)].map((m) => m[1]!.trim());

describe('dr with a small model', () => {
  it('reads the placeholder spellings small models write ("unknown", a lone "?", [Y])', async () => {
    const answer = await run([
      decomposition([
        { subject: 'Ithaca', relation: 'HAS_KING', object: 'unknown' },
        { subject: '?', relation: 'HAS_WIFE', object: '[Y]' },
      ]),
    ]);
    expect(resolves(answer).map((r) => [r.anchor, r.placeholder, r.value])).toEqual([
      ['Ithaca', '?X', 'Odysseus'],
      ['Odysseus', '?Y', 'Penelope'],
    ]);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('asks again when the model names the anchor, and grounds a value copied with its "(Type)"', async () => {
    // First the label of the first candidate (the anchor's own entity), then, told so, the value with the label's type.
    const anchorFirst: ScriptRule = {
      prompt: 'qa/dr-resolve',
      reply: (v) => {
        if (!v.retry)
          return {
            reasoning: 'the first candidate matches the triple',
            value: candidateLabels(v.candidates!)[0],
            supporting: [1],
          };
        const value = /HAS_KING/.test(v.triple!) ? 'Odysseus' : 'Penelope';
        const at = candidateLabels(v.candidates!).length;
        return { reasoning: 'the summary names it', value: `${value} (Person)`, supporting: [at > 1 ? 2 : 1, 1] };
      },
    };
    const answer = await run([anchorFirst]);
    const steps = resolves(answer);
    expect(steps.map((r) => [r.anchor, r.value])).toEqual([
      ['Ithaca', 'Odysseus'],
      ['Odysseus', 'Penelope'],
    ]);
    expect(steps[0]!.rejected).toEqual([expect.stringMatching(/^Ithaca/)]);
    expect(steps.map((r) => r.grounded)).toEqual([
      [expect.objectContaining({ label: expect.stringMatching(/^Odysseus/) })],
      [expect.objectContaining({ label: expect.stringMatching(/^Penelope/) })],
    ]);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('never takes the anchor as the value, even when the model insists', async () => {
    const stubborn: ScriptRule = {
      prompt: 'qa/dr-resolve',
      reply: (v) => ({ reasoning: 'it is the first', value: candidateLabels(v.candidates!)[0], supporting: [1] }),
    };
    const answer = await run([stubborn]);
    const first = resolves(answer)[0]!;
    expect(first.value).toBeNull();
    expect(first.unresolved).toMatch(/anchor "Ithaca"/);
    // What it cited still joins the evidence, listed by label.
    expect(first.added).toEqual([expect.stringMatching(/^Ithaca/)]);
  });

  it('resolves every independent triple past one it cannot, skipping only those that wait for it, and says so', async () => {
    const answer = await run([
      decomposition([
        { subject: 'Penelope', relation: 'HAS_MOTHER', object: '?Z' },
        { subject: '?Z', relation: 'BORN_IN', object: '?W' },
        { subject: 'Ithaca', relation: 'HAS_KING', object: '?X' },
        { subject: '?X', relation: 'HAS_WIFE', object: '?Y' },
      ]),
    ]);
    expect(resolves(answer).map((r) => [r.anchor, r.placeholder, r.value])).toEqual([
      ['Penelope', '?Z', null],
      ['Ithaca', '?X', 'Odysseus'],
      ['Odysseus', '?Y', 'Penelope'],
    ]);
    expect(resolves(answer)[0]!.unresolved).toMatch(/do not say/);
    const topUp = answer.trace.find((s) => s.step === 'similarity top-up')!.detail as {
      skipped: unknown[];
      unresolved: string[];
    };
    expect(topUp.skipped).toEqual([{ triple: '?Z BORN_IN ?W', waitingFor: ['?Z', '?W'] }]);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });
});
