import { fence } from '../../base/fence.js';
import { languageName } from '../language.js';
import type { QaRun } from '../QaRun.js';
import type { Strategy, StrategyResult } from '../types.js';

/** LLM-only baseline (seeds 000, 002): the model answers from its own knowledge, no retrieval, no evidence. */
export const llmOnlyStrategy: Strategy = {
  name: 'llm-only',
  usesRetrieval: false,
  async answer(run: QaRun): Promise<StrategyResult> {
    const text = await run.step('answer', (s) =>
      s.text('qa/llm-only', { question: fence(run.question), language: languageName(run.answerLanguage) }, { stream: true }),
    );
    return { text, evidence: [] };
  },
};
