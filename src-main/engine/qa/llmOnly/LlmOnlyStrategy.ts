import { fence } from '../../base/fence.js';
import type { QaRun } from '../QaRun.js';
import { finalAnswer } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';

/** LLM-only baseline (seeds 000, 002): the model answers from its own knowledge, no retrieval, no evidence. */
export const llmOnlyStrategy: Strategy = {
  name: 'llm-only',
  usesRetrieval: false,
  async answer(run: QaRun): Promise<StrategyResult> {
    const reply = await run.step('answer', (s) =>
      finalAnswer(s, run, 'qa/llm-only', { question: fence(run.question) }),
    );
    return { ...reply, evidence: [] };
  },
};
