import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

interface JudgeDetail {
  scores: {
    triple: string;
    directness: number;
    entityClarity: number;
    contextRelevance: number;
    total: number;
    kept: boolean;
  }[];
}

const relevant = (text: string): boolean => /king of ithaca|married to|husband of|wife of/i.test(text);

describe('hyp judge threshold', () => {
  it('drops a triple that fails one criterion outright, whatever its total', async () => {
    // A small judge's verdicts: uneven scores, and off-topic facts rated "direct" or "clear" in one criterion
    // while another says 0, so their totals reach 3 or 4.
    let k = 0;
    const uneven: ScriptRule = {
      prompt: 'qa/hyp-judge',
      reply: (v) => ({
        scores: [...v.candidates!.matchAll(/^\[(\d+)\] (.*)$/gmu)].map((m) => {
          const id = Number(m[1]);
          if (relevant(m[2]!)) return { id, directness: 2, entityClarity: 2, contextRelevance: 1 };
          return k++ % 2 === 0
            ? { id, directness: 2, entityClarity: 1, contextRelevance: 0 }
            : { id, directness: 0, entityClarity: 2, contextRelevance: 2 };
        }),
      }),
    };
    const llm = new ScriptedLlm([uneven, ...qaRules()]);
    const answer = await ask(
      { kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() },
      WIFE_OF_KING.en,
      { strategy: 'hyp' },
    );
    const judge = answer.trace.find((s) => s.step === 'judge')!.detail as JudgeDetail;
    const offTopic = judge.scores.filter((s) => Math.min(s.directness, s.entityClarity, s.contextRelevance) === 0);
    expect(offTopic.length).toBeGreaterThan(1);
    expect(offTopic.every((s) => s.total >= 3)).toBe(true);
    expect(offTopic.filter((s) => s.kept)).toEqual([]);
    expect(judge.scores.filter((s) => s.kept).every((s) => s.total === 5)).toBe(true);
    expect(judge.scores.some((s) => s.kept)).toBe(true);
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    expect(answer.evidence.every((e) => relevant(e.text))).toBe(true);
  });
});
