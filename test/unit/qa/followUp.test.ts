import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import {
  ask,
  resolveQaSettings,
  rewriteFollowUp,
  rewriteProblem,
  type EarlierTurn,
  type QaContext,
} from '../../../src-main/engine/qa/index.js';
import type { Llm } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm, type ScriptRule } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';
import { rewriteRule } from './support/rewriteRule.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

const context = (llm: Llm | null): QaContext => ({
  kb,
  llm,
  embedder: new QaEmbedder(),
  prompts,
  settings: resolveQaSettings(),
});

const scripted = (rules: ScriptRule[] = [rewriteRule]) => new ScriptedLlm([...rules, ...qaRules()]);

/** The first turn as the pipeline answers it: the wife of the king of Ithaca, asked in Italian. */
async function italianFirstTurn(): Promise<EarlierTurn> {
  const first = await ask(context(scripted()), WIFE_OF_KING.it, { strategy: 'dr' });
  expect(first.shortAnswer).toBe('Penelope');
  return { question: first.question, answer: first.shortAnswer!, language: first.questionLanguage };
}

describe('rewriting a follow-up into a standalone question', () => {
  it('does not rewrite the first turn of a thread: no call, the question as asked', async () => {
    const llm = scripted();
    const rewrite = await rewriteFollowUp(context(llm), [], 'Who was the king of Ithaca?');
    expect(rewrite).toMatchObject({ how: 'first-turn', standalone: 'Who was the king of Ithaca?' });
    expect(llm.callCount).toBe(0);
    expect(rewrite.step).toMatchObject({ step: 'rewrite', llmCalls: 0 });
  });

  it('keeps an Italian follow-up Italian, names the referent from the thread, and shows the call and its tokens', async () => {
    const earlier = [await italianFirstTurn()];
    const llm = scripted();
    const rewrite = await rewriteFollowUp(context(llm), earlier, 'e dove è nata?');
    expect(llm.callsOf('qa/rewrite')).toHaveLength(1);
    expect(llm.callsOf('qa/rewrite')[0]!.prompt.variables.language).toBe('Italian');
    expect(rewrite).toMatchObject({ how: 'model', standalone: 'Dove è nata Penelope?', language: 'it' });
    expect(rewrite.step.llmCalls).toBe(1);
    expect(rewrite.step.promptTokens).toBeGreaterThan(0);
    expect(rewrite.step.detail).toMatchObject({ languageKept: true, followUp: 'e dove è nata?' });
    expect(rewrite.usage).toMatchObject({ llmCalls: 1, promptTokens: rewrite.step.promptTokens });
  });

  // Every language the UI has beyond en and it: a first turn asked in it, a follow-up that leaves out whom it asks about.
  it.each([
    [
      'de',
      'German',
      'Wer war die Frau des Königs von Ithaka?',
      'Penelope',
      'und wo wurde sie geboren?',
      'Wo wurde Penelope geboren?',
    ],
    ['fr', 'French', WIFE_OF_KING.fr, 'Penelope', 'et où est-elle née ?', 'Où Penelope est-elle née ?'],
    ['es', 'Spanish', WIFE_OF_KING.es, 'Penelope', '¿y dónde nació?', '¿Dónde nació Penelope?'],
    // No spaces and no capitals: the referent is found by character pairs.
    ['zh', 'Chinese', '伊萨卡国王的妻子是谁？', '佩涅罗珀', '她出生在哪里？', '佩涅罗珀出生在哪里？'],
  ])(
    'keeps a %s follow-up in its language (%s in the prompt) and names the referent',
    async (code, name, question, answer, followUp, standalone) => {
      const llm = scripted();
      const earlier: EarlierTurn[] = [{ question, answer, language: code }];
      const rewrite = await rewriteFollowUp(context(llm), earlier, followUp);
      expect(llm.callsOf('qa/rewrite')).toHaveLength(1);
      expect(llm.callsOf('qa/rewrite')[0]!.prompt.variables.language).toBe(name);
      expect(rewrite).toMatchObject({ how: 'model', standalone, language: code });
      expect(rewrite.step.detail).toMatchObject({ languageKept: true, followUp });
    },
  );

  it('heads the answer trace with the rewrite, and counts its tokens in the answer cost', async () => {
    const earlier: EarlierTurn[] = [{ question: 'Who was the king of Ithaca?', answer: 'Odysseus', language: 'en' }];
    const rewrite = await rewriteFollowUp(context(scripted()), earlier, 'And who was his wife?');
    expect(rewrite.standalone).toBe('Who was Odysseus wife?');
    const answer = await ask(context(scripted()), rewrite.standalone, { strategy: 'vector', rewrite });
    expect(answer.trace[0]!.step).toBe('rewrite');
    expect(answer.trace[1]!.step).toBe('language');
    const stepCalls = answer.trace.reduce((n, s) => n + s.llmCalls, 0);
    expect(answer.usage.llmCalls).toBe(stepCalls);
    expect(answer.usage.promptTokens).toBe(answer.trace.reduce((n, s) => n + s.promptTokens, 0));
  });

  it('detects a rewrite that drops the referent and asks the follow-up with the previous turn instead', async () => {
    const earlier = [await italianFirstTurn()];
    const dropped: ScriptRule = { prompt: 'qa/rewrite', reply: () => ({ standalone: 'Dove è nata?' }) };
    const rewrite = await rewriteFollowUp(context(scripted([dropped])), earlier, 'e dove è nata?');
    expect(rewrite.how).toBe('fallback');
    expect(rewrite.step.detail).toMatchObject({
      suggested: 'Dove è nata?',
      problem: expect.stringMatching(/referent/),
    });
    expect(rewrite.standalone).toBe(`e dove è nata? (${WIFE_OF_KING.it} Penelope)`);
  });

  it('falls back the same way on an echo, a reply that fails its schema, an empty one, and with no model', async () => {
    const earlier = [await italianFirstTurn()];
    const echo: ScriptRule = { prompt: 'qa/rewrite', reply: (v) => ({ standalone: v.followUp }) };
    const invalid: ScriptRule = { prompt: 'qa/rewrite', reply: () => ({ question: 'Dove è nata Penelope?' }) };
    const empty: ScriptRule = { prompt: 'qa/rewrite', reply: () => ({ standalone: '  ' }) };
    for (const llm of [scripted([echo]), scripted([invalid]), scripted([empty]), null]) {
      const rewrite = await rewriteFollowUp(context(llm), earlier, 'e dove è nata?');
      expect(rewrite.how).toBe('fallback');
      expect(rewrite.standalone).toContain('Penelope');
    }
  });

  it('accepts an unchanged follow-up that names its own subject', () => {
    const earlier: EarlierTurn[] = [{ question: WIFE_OF_KING.en, answer: 'Penelope' }];
    expect(rewriteProblem('Where was Penelope born?', 'Where was Penelope born?', earlier)).toBeNull();
    expect(rewriteProblem('Where was she born?', 'Where was she born?', earlier)).toMatch(/referent/);
    expect(rewriteProblem('x'.repeat(1001), 'Where was she born?', earlier)).toMatch(/longer/);
    // 1,000 characters is still within the limit.
    expect(rewriteProblem(`Where was Penelope born?${' '.repeat(976)}`, 'Where was she born?', earlier)).toBeNull();
  });

  it('never fails a follow-up with a model that degrades its replies: the standalone question is accepted or falls back', async () => {
    const earlier = [await italianFirstTurn()];
    const hows = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const llm = new UncooperativeLlm(scripted(), {
        seed,
        rates: { emptyString: 0.3, longString: 0.3, reasoningPrefix: 0.3, emptyReply: 0.2 },
      });
      const rewrite = await rewriteFollowUp(context(llm), earlier, 'e dove è nata?');
      hows.add(rewrite.how);
      expect(rewrite.standalone).toContain('Penelope');
      expect(rewrite.standalone.length).toBeLessThanOrEqual(1000);
      if (rewrite.how === 'fallback') expect(rewrite.step.detail).toHaveProperty('problem');
    }
    expect([...hows].sort()).toEqual(['fallback', 'model']);
  });
});
