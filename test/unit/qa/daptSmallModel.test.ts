import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

function run(rules: ScriptRule[], overrides: Record<string, number> = {}): Promise<{ answer: Answer; llm: ScriptedLlm }> {
  const llm = new ScriptedLlm([...rules, ...qaRules()], { countTokens });
  return ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) }, WIFE_OF_KING.it, { strategy: 'dapt' }).then((answer) => ({ answer, llm }));
}

interface SolveDetail {
  judge: unknown;
  regenerations?: { answer: string; found: boolean; accepted: boolean }[];
}
const solves = (a: Answer): SolveDetail[] => a.trace.filter((s) => s.step.startsWith('solve')).map((s) => s.detail as SolveDetail);

// A small model's sub-answers on the wife hop: the Italian path finds nothing, the English one names
// the husband (the anchor) instead of the wife, so the judge must reject and ReGen must try again.
const wrongWifeAnswers: ScriptRule = {
  prompt: 'qa/dapt-subanswer',
  when: (v) => /moglie|wife/.test(v.subQuestion!),
  reply: (v) => (/moglie/.test(v.subQuestion!) ? { answer: '', found: false } : { answer: 'Ulisse', found: true }),
};
const judge: ScriptRule = {
  prompt: 'qa/dapt-judge',
  // Accepts only an answer naming Penelope for the wife hop (what the passages say); the king hop as before.
  when: (v) => /moglie|wife/.test(v.subQuestion!),
  reply: (v) => ({ consistent: v.answerSource === v.answerEnglish || v.answerSource === '(none)', sufficient: /Penelope|Penelope/.test(`${v.answerSource} ${v.answerEnglish}`) }),
};

describe('dapt with a small model', () => {
  it('regenerates until the judge accepts, each attempt told what was rejected', async () => {
    let calls = 0;
    // First regeneration repeats the rejected husband, the second finds the wife in the passages.
    const regenerate: ScriptRule = {
      prompt: 'qa/dapt-regenerate',
      reply: (v) => (++calls === 1 ? { answer: 'Ulisse (Person)', found: true } : { answer: /Penelope/.test(v.passages!) ? 'Penelope' : '', found: /Penelope/.test(v.passages!) }),
    };
    const { answer, llm } = await run([wrongWifeAnswers, judge, regenerate]);
    const wife = solves(answer).find((s) => s.regenerations)!;
    expect(wife.regenerations).toEqual([
      { answer: 'Ulisse (Person)', found: true, accepted: false },
      { answer: 'Penelope', found: true, accepted: true },
    ]);
    expect(llm.callsOf('qa/dapt-regenerate')[1]!.prompt.variables.candidates).toContain('Ulisse (Person)');
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('stops regenerating at dapt.maxRegenerations and keeps the last attempt', async () => {
    const stubborn: ScriptRule = { prompt: 'qa/dapt-regenerate', reply: () => ({ answer: 'Ulisse', found: true }) };
    const { answer, llm } = await run([wrongWifeAnswers, judge, stubborn], { 'dapt.maxRegenerations': 2 });
    expect(llm.callsOf('qa/dapt-regenerate')).toHaveLength(2);
    expect(solves(answer).find((s) => s.regenerations)!.regenerations!.map((r) => r.accepted)).toEqual([false, false]);
  });

  it('answers from the chain and the retrieval for the original question only', async () => {
    const { answer, llm } = await run([], { 'dapt.finalK': 1 });
    const step = answer.trace.find((s) => s.step === 'answer')!.detail as { finalRetrieval: { label: string }[]; subQuestionPassages: number };
    const shown = llm.callsOf('qa/dapt-final')[0]!.prompt.variables.evidence!;
    expect(shown.match(/^\[\d+\]/gmu)).toHaveLength(step.finalRetrieval.length);
    expect(answer.evidence.map((e) => e.label)).toEqual(step.finalRetrieval.map((e) => e.label));
    expect(step.subQuestionPassages).toBeGreaterThan(0);
    const final = llm.callsOf('qa/dapt-final')[0]!.prompt.variables;
    expect(final.chain).toMatch(/→ Penelope/);
  });
});
