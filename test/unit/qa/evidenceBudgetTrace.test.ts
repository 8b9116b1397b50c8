import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import type { BudgetNote } from '../../../src-main/engine/qa/synthesis.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

/** The trace says how much evidence the model's real context left out, by kind. */

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

/** A strategy over the Odysseus KB with a model whose context is `contextTokens` (it refuses prompts that do not fit, as llama.cpp does). */
async function drWith(contextTokens: number, strategy: 'dr' | 'dapt' = 'dr') {
  const llm = new UncooperativeLlm(new ScriptedLlm(qaRules()), {
    seed: 1,
    contextTokens,
    degrade: () => false,
  });
  return ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings() }, WIFE_OF_KING.en, {
    strategy,
  });
}

const answerStep = (answer: Awaited<ReturnType<typeof drWith>>) =>
  answer.trace.find((s) => s.step === 'answer')!.detail as {
    budget: BudgetNote;
    droppedForBudget?: { kind: string }[];
    evidence: unknown[];
  };

describe('evidence budget in the trace', () => {
  it('counts the summaries a small context left out of the answer prompt, and names the budget and context', async () => {
    const answer = await drWith(2048);
    const step = answerStep(answer);
    // 2,048 − 512 (answer) − 1,024 (prompt room) = 512 tokens of evidence.
    expect(step.budget.evidenceTokens).toBe(512);
    expect(step.budget.contextTokens).toBe(2048);
    const dropped = step.droppedForBudget!.filter((d) => d.kind === 'summary').length;
    expect(dropped).toBeGreaterThan(0);
    expect(step.budget.dropped).toEqual({ summary: dropped, triple: 0, chunk: 0 });
    expect(step.budget.shown).toBe(step.evidence.length);
    expect(step.budget.text).toBe(
      `${dropped} summar${dropped === 1 ? 'y' : 'ies'} did not fit the 512-token evidence budget (2,048-token context); ${step.evidence.length} shown`,
    );
  });

  it('says all evidence fit when the context holds it', async () => {
    const step = answerStep(await drWith(16_384));
    expect(step.droppedForBudget).toBeUndefined();
    expect(step.budget.dropped).toEqual({ summary: 0, triple: 0, chunk: 0 });
    expect(step.budget.text).toMatch(
      /^all \d+ pieces of evidence fit the 14,848-token evidence budget \(16,384-token context\)$/,
    );
  });
});

describe('DaPT sub-answers in the trace', () => {
  it('every solve step says what its sub-answer prompts held and left out, after the reasoning path', async () => {
    const answer = await drWith(2048, 'dapt');
    const solves = answer.trace.filter((s) => s.step.startsWith('solve '));
    expect(solves.length).toBeGreaterThan(0);
    for (const solve of solves) {
      const detail = solve.detail as {
        budget?: BudgetNote;
        attempts: { passages: unknown[]; droppedForBudget?: unknown[] }[];
      };
      expect(detail.budget, solve.step).toBeDefined();
      const shown = detail.attempts.reduce((n, a) => n + a.passages.length, 0);
      const dropped = detail.attempts.reduce((n, a) => n + (a.droppedForBudget?.length ?? 0), 0);
      expect(detail.budget!.shown).toBe(shown);
      expect(detail.budget!.dropped.chunk + detail.budget!.dropped.triple + detail.budget!.dropped.summary).toBe(
        dropped,
      );
      expect(detail.budget!.contextTokens).toBe(2048);
      // The path of earlier answers is in the prompt too: the passages get at most the 512 tokens the context leaves.
      expect(detail.budget!.evidenceTokens).toBeLessThanOrEqual(512);
      expect(detail.budget!.text).toContain('(2,048-token context)');
    }
  });
});
