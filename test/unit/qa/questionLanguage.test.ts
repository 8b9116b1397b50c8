import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, StrategyName } from '../../../src-main/engine/api/contract.js';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, guessLanguage, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

function run(
  question: string,
  strategy: StrategyName,
  rules: ScriptRule[] = [],
  options: { answerLanguage?: string; uiLanguage?: string } = {},
): Promise<{ answer: Answer; llm: ScriptedLlm }> {
  const llm = new ScriptedLlm([...rules, ...qaRules()]);
  return ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() }, question, {
    strategy,
    ...options,
  }).then((answer) => ({ answer, llm }));
}
const languageStep = (a: Answer) =>
  a.trace.find((s) => s.step === 'language')!.detail as {
    detected: { language: string; confident: boolean };
    model?: string | null;
  };

describe('the question language', () => {
  it('reads short, name-heavy questions by their own words, not by their names', () => {
    // tinyld alone: Italian and Icelandic, both at confidence 1.0.
    expect(guessLanguage('Who painted La Gioconda?').language).toBe('en');
    expect(guessLanguage('Where is Reykjavík?').language).toBe('en');
    expect(guessLanguage('Wo liegt Reykjavík?').language).toBe('de');
    expect(guessLanguage('¿Dónde está Reykjavík?').language).toBe('es');
    expect(guessLanguage('When was Gabriel García Márquez born?').language).toBe('en');
    expect(guessLanguage('Ποιος ζωγράφισε τη Μόνα Λίζα;')).toMatchObject({ language: 'el', confident: true });
    expect(guessLanguage('Где находится Рейкьявик?').language).toBe('ru');
    // Too few words of its own: the interface language, and the tie-breaker is asked.
    expect(guessLanguage('Reykjavík?', { uiLanguage: 'de' })).toMatchObject({ language: 'de', confident: false });
  });

  it('answers a name-heavy English question in English, with one graph in DaPT', async () => {
    const { answer, llm } = await run('Where is Reykjavík?', 'dapt');
    expect(answer.questionLanguage).toBe('en');
    expect(llm.callsOf('qa/dapt-decompose')).toHaveLength(1);
    expect(llm.callsOf('qa/dapt-final')[0]!.prompt.variables.language).toBe('English');
  });

  it('asks the model when the words are too few to tell, and takes its pick among the candidates', async () => {
    const { answer, llm } = await run('Who painted La Gioconda?', 'dr');
    expect(languageStep(answer).detected.confident).toBe(false);
    expect(llm.callsOf('qa/language')[0]!.prompt.variables.candidates).toMatch(
      /en \(English\).*it \(Italian\)|it \(Italian\).*en \(English\)/,
    );
    expect(languageStep(answer).model).toBe('en');
    expect(answer.questionLanguage).toBe('en');
    expect(answer.answerLanguage).toBe('en');
  });
});

describe('the answer language', () => {
  // A small model slides into English, the language of most of the evidence, unless told again.
  const drifts = (times: number): ScriptRule => {
    let calls = 0;
    return {
      prompt: 'qa/answer',
      when: () => calls++ < times,
      reply: (v) => ({
        answer: `The wife of the king of Ithaca was Penelope ${/\[1\]/.test(v.evidence!) ? '[1]' : ''}, who waited for him for twenty years.`,
        short: 'Penelope',
      }),
    };
  };

  it('asks again, told so, when the answer is in another language than asked', async () => {
    const { answer, llm } = await run(WIFE_OF_KING.it, 'dr', [drifts(1)]);
    expect(answer.answerLanguage).toBe('it');
    const calls = llm.callsOf('qa/answer');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt.variables.retry).toMatch(/English.*Italian/);
    expect(answer.text).toMatch(/^La moglie del re di Itaca era Penelope/);
    const step = answer.trace.find((s) => s.step === 'answer')!.detail as { language: unknown };
    expect(step.language).toEqual({ expected: 'it', written: 'en', askedAgain: true });
  });

  it('flags an answer that stays in the wrong language', async () => {
    const { answer, llm } = await run(WIFE_OF_KING.it, 'dr', [drifts(2)]);
    expect(llm.callsOf('qa/answer')).toHaveLength(2);
    const step = answer.trace.find((s) => s.step === 'answer')!.detail as { language: unknown };
    expect(step.language).toEqual({ expected: 'it', written: 'en', askedAgain: true, stillWritten: 'en' });
  });

  it('does not ask again for an answer that is only a name and citations', async () => {
    const bare: ScriptRule = { prompt: 'qa/answer', reply: () => ({ answer: 'Penelope [1].', short: 'Penelope' }) };
    const { answer, llm } = await run(WIFE_OF_KING.it, 'dr', [bare]);
    expect(llm.callsOf('qa/answer')).toHaveLength(1);
    expect(answer.text).toBe('Penelope [1].');
  });
});
