import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

function run(
  rules: ScriptRule[],
  overrides: Record<string, number> = {},
): Promise<{ answer: Answer; llm: ScriptedLlm }> {
  const llm = new ScriptedLlm([...rules, ...qaRules()]);
  return ask(
    { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) },
    WIFE_OF_KING.it,
    { strategy: 'dapt' },
  ).then((answer) => ({ answer, llm }));
}

interface SolveDetail {
  judge: unknown;
  regenerations?: { answer: string; found: boolean; accepted: boolean }[];
  attempts: { side: string; answer: string; found: boolean; droppedForBudget?: unknown[] }[];
  regenerationDroppedForBudget?: unknown[];
}
const solves = (a: Answer): SolveDetail[] =>
  a.trace.filter((s) => s.step.startsWith('solve')).map((s) => s.detail as SolveDetail);

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
  reply: (v) => ({
    consistent: v.answerSource === v.answerEnglish || v.answerSource === '(none)',
    sufficient: /Penelope|Penelope/.test(`${v.answerSource} ${v.answerEnglish}`),
  }),
};

describe('dapt with a small model', () => {
  it('puts the answer of the node a source-language sub-question references in place of its #id', async () => {
    const { llm } = await run([]);
    const wife = llm
      .callsOf('qa/dapt-subanswer')
      .map((c) => c.prompt.variables.subQuestion!)
      .filter((q) => /moglie/.test(q));
    expect(wife.length).toBeGreaterThan(0);
    for (const q of wife) expect(q).toMatch(/^Chi era la moglie di [^#()]+\?$/u);
  });

  it('regenerates until the judge accepts, each attempt told what was rejected', async () => {
    let calls = 0;
    // First regeneration repeats the rejected husband, the second finds the wife in the passages.
    const regenerate: ScriptRule = {
      prompt: 'qa/dapt-regenerate',
      reply: (v) =>
        ++calls === 1
          ? { answer: 'Ulisse (Person)', found: true }
          : { answer: /Penelope/.test(v.passages!) ? 'Penelope' : '', found: /Penelope/.test(v.passages!) },
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
    expect(
      solves(answer)
        .find((s) => s.regenerations)!
        .regenerations!.map((r) => r.accepted),
    ).toEqual([false, false]);
  });

  it('answers from the chain and the retrieval for the original question only', async () => {
    const { answer, llm } = await run([], { 'dapt.finalK': 1 });
    const step = answer.trace.find((s) => s.step === 'answer')!.detail as {
      finalRetrieval: { label: string }[];
      subQuestionPassages: number;
    };
    const shown = llm.callsOf('qa/dapt-final')[0]!.prompt.variables.evidence!;
    expect(shown.match(/^\[\d+\]/gmu)).toHaveLength(step.finalRetrieval.length);
    expect(answer.evidence.map((e) => e.label)).toEqual(step.finalRetrieval.map((e) => e.label));
    expect(step.subQuestionPassages).toBeGreaterThan(0);
    const final = llm.callsOf('qa/dapt-final')[0]!.prompt.variables;
    expect(final.chain).toMatch(/→ Penelope/);
  });

  it('never lets an empty regeneration replace the answer a path found', async () => {
    // The Italian path finds nothing, the English one finds Penelope; a strict judge calls "(none)" and
    // "Penelope" inconsistent, and the small model gives up on every regeneration.
    const englishOnly: ScriptRule = {
      prompt: 'qa/dapt-subanswer',
      when: (v) => /moglie/.test(v.subQuestion!),
      reply: () => ({ answer: '', found: false }),
    };
    const strict: ScriptRule = {
      prompt: 'qa/dapt-judge',
      when: (v) => v.answerSource === '(none)',
      reply: () => ({ consistent: false, sufficient: false }),
    };
    const givesUp: ScriptRule = { prompt: 'qa/dapt-regenerate', reply: () => ({ answer: '', found: false }) };
    const { answer, llm } = await run([englishOnly, strict, givesUp]);
    const wife = solves(answer).find((s) => s.regenerations)!;
    expect(wife.attempts.map((a) => [a.side, a.found])).toEqual([
      ['source', false],
      ['english', true],
    ]);
    expect(wife.regenerations!.every((r) => !r.found)).toBe(true);
    // Each later attempt is told of the empty one before it, as "(none)".
    expect(llm.callsOf('qa/dapt-regenerate')[1]!.prompt.variables.candidates).toMatch(/Penelope \| \(none\)/u);
    expect(llm.callsOf('qa/dapt-final')[0]!.prompt.variables.chain).toMatch(/→ Penelope\s*$/u);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('checks a regeneration against the passages, not against itself', async () => {
    // The first regeneration is a plausible name the passages never state; the second reads them.
    let calls = 0;
    const hallucinates: ScriptRule = {
      prompt: 'qa/dapt-regenerate',
      reply: (v) =>
        ++calls === 1
          ? { answer: 'Helen', found: true }
          : { answer: /Penelope/.test(v.passages!) ? 'Penelope' : '', found: /Penelope/.test(v.passages!) },
    };
    const { answer, llm } = await run([wrongWifeAnswers, judge, hallucinates]);
    const wife = solves(answer).find((s) => s.regenerations)!;
    expect(wife.regenerations).toEqual([
      { answer: 'Helen', found: true, accepted: false },
      { answer: 'Penelope', found: true, accepted: true },
    ]);
    // No judge call compares an answer with itself.
    expect(
      llm
        .callsOf('qa/dapt-judge')
        .filter(
          (c) =>
            c.prompt.variables.answerSource === c.prompt.variables.answerEnglish &&
            c.prompt.variables.answerSource !== '(none)',
        ),
    ).toEqual([]);
    expect(
      llm
        .callsOf('qa/dapt-verify')
        .map((c) => c.prompt.variables.passages)
        .every((p) => /Penelope/.test(p!)),
    ).toBe(true);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it('survives a verifier that rejects a supported regeneration: the last answer found still stands', async () => {
    // A small verifier flips its verdict (the uncooperative double at rate 1, on this step only): every
    // regeneration naming Penelope from the passages is called unsupported, so none is accepted.
    const readsPassages: ScriptRule = {
      prompt: 'qa/dapt-regenerate',
      reply: (v) => ({ answer: /Penelope/.test(v.passages!) ? 'Penelope' : '', found: /Penelope/.test(v.passages!) }),
    };
    const llm = new UncooperativeLlm(new ScriptedLlm([wrongWifeAnswers, judge, readsPassages, ...qaRules()]), {
      seed: 1,
      degrade: (name) => name === 'qa/dapt-verify',
      promptRates: { 'qa/dapt-verify': { flippedVerdict: 1 } },
    });
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings({ 'dapt.maxRegenerations': 2 }) },
      WIFE_OF_KING.it,
      { strategy: 'dapt' },
    );
    const wife = solves(answer).find((s) => s.regenerations)! as SolveDetail & { unaccepted?: string };
    expect(llm.count('flippedVerdict', 'qa/dapt-verify')).toBeGreaterThanOrEqual(2);
    expect(wife.regenerations).toEqual([
      { answer: 'Penelope', found: true, accepted: false },
      { answer: 'Penelope', found: true, accepted: false },
    ]);
    expect(wife.unaccepted).toBe('the last regeneration that found an answer stands');
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
  });

  it("fits sub-answer and regeneration prompts to a small context, counted with the model's tokenizer", async () => {
    // A real model's limits (o200k tokens, a prompt over the context refused, output cut at what is left), no degradation.
    const contextTokens = 1200;
    const stepMaxTokens = 512;
    const llm = new UncooperativeLlm(new ScriptedLlm([wrongWifeAnswers, judge, ...qaRules()]), {
      seed: 1,
      contextTokens,
      degrade: () => false,
    });
    const settings = resolveQaSettings({ 'dapt.retrievalK': 9, 'shared.stepMaxTokens': stepMaxTokens });
    const calls: { name: string; tokens: number }[] = [];
    const metered = new Proxy(llm, {
      get(target, key, receiver) {
        if (key !== 'generateJson') return Reflect.get(target, key, receiver) as unknown;
        return (prompt: { name: string; system: string; user: string }, ...rest: unknown[]) => {
          calls.push({ name: prompt.name, tokens: countTokens(prompt.system) + countTokens(prompt.user) });
          return (target.generateJson as (...a: unknown[]) => unknown).call(target, prompt, ...rest);
        };
      },
    });
    const answer = await ask({ kb, llm: metered, embedder: new QaEmbedder(), prompts, settings }, WIFE_OF_KING.it, {
      strategy: 'dapt',
    });
    const daptCalls = calls.filter((c) => /dapt-(subanswer|regenerate|verify)/.test(c.name));
    expect(daptCalls.some((c) => c.name === 'qa/dapt-regenerate')).toBe(true);
    for (const c of daptCalls) expect(c.tokens + stepMaxTokens, c.name).toBeLessThanOrEqual(contextTokens);
    const wife = solves(answer).find((s) => s.regenerations)!;
    expect(wife.regenerationDroppedForBudget?.length).toBeGreaterThan(0);
  });

  it('refuses a source-language graph written in English: the Italian path keeps the question as asked', async () => {
    // A small model told to decompose in Italian answers with the English decomposition (prose in the wrong language).
    const englishForItalian: ScriptRule = {
      prompt: 'qa/dapt-decompose',
      when: (v) => v.language === 'Italian',
      reply: () => ({
        subQuestions: [
          { id: '1', question: 'Who was the king of Ithaca?', dependsOn: [] },
          { id: '2', question: 'Who was the wife of #1?', dependsOn: ['1'] },
        ],
      }),
    };
    const { answer } = await run([englishForItalian]);
    const plan = answer.trace.find((s) => s.step === 'plan')!.detail as Record<string, unknown>;
    expect(plan.sourceRejected).toMatch(/written in English, not Italian/);
    expect(plan.source).toEqual([{ id: '1', question: WIFE_OF_KING.it, dependsOn: [] }]);
    // The English graph still plans both hops, and the answer is found.
    expect((plan.english as unknown[]).length).toBe(2);
    expect(answer.text).toMatch(/Penelope/);
  });
});
