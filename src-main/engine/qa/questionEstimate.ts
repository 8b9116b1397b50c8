import {
  ESTIMATE_MODEL,
  formatAbout,
  inferenceSeconds,
  roundForPlan,
  RTX_3090_LLAMA_8B,
  type GpuThroughput,
} from '../models/gpuThroughput.js';
import { STRATEGIES, type QuestionEstimate, type StrategyName } from './Answer.js';

export type { QuestionEstimate };

/** LLM tokens one question spends with a strategy (medians over the bench's questions). */
export interface QuestionTokens {
  /** Prompt tokens of all its calls, chat template included. */
  inputTokens: number;
  /** Reply tokens without reasoning. */
  outputTokens: number;
  /** Reasoning tokens when every step that reasons spends its whole budget (the default policy's upper bound). */
  reasoningTokens: number;
}

/**
 * Measured by `npm run bench qa` (10k entities, 30 questions per strategy, plans of real size,
 * counted as Qwen3-8B with its chat template, the default reasoning policy) on 2026-12-03: the
 * "tokens/q" lines. Rerun the bench and update these when the plans, the prompts or the reasoning
 * policy change.
 */
export const MEASURED_QUESTION_TOKENS: Record<StrategyName, QuestionTokens> = {
  dr: { inputTokens: 4878, outputTokens: 179, reasoningTokens: 6168 },
  hyp: { inputTokens: 7235, outputTokens: 1433, reasoningTokens: 8738 },
  dapt: { inputTokens: 12126, outputTokens: 232, reasoningTokens: 10794 },
  vector: { inputTokens: 5403, outputTokens: 26, reasoningTokens: 1542 },
  'llm-only': { inputTokens: 282, outputTokens: 21, reasoningTokens: 1542 },
};

/**
 * How long the LLM part of one question takes with `strategy` on a named GPU with Qwen3-8B Q4_K_M:
 * its measured tokens at published rates, one sequence (a question's calls run one after another).
 * Polyhop's own time (retrieval, embeddings: ~0.1 s) is left out. A plan for the user, not a
 * promise: their GPU, model and questions differ.
 */
export function estimateQuestion(
  strategy: StrategyName,
  options: { tokens?: QuestionTokens; gpu?: GpuThroughput } = {},
): QuestionEstimate {
  const tokens = options.tokens ?? MEASURED_QUESTION_TOKENS[strategy];
  const gpu = options.gpu ?? RTX_3090_LLAMA_8B;
  const time = (outputTokens: number) =>
    inferenceSeconds(gpu, { inputTokens: tokens.inputTokens, outputTokens, parallel: 1 });
  const seconds = time(tokens.outputTokens);
  const reasoningSeconds = time(tokens.outputTokens + tokens.reasoningTokens);
  const range = reasoningSeconds > seconds ? ` (up to ${formatAbout(reasoningSeconds)} with reasoning)` : '';
  return {
    strategy,
    seconds,
    reasoningSeconds,
    rounded: roundForPlan(seconds),
    reasoningRounded: roundForPlan(reasoningSeconds),
    gpu: gpu.gpu,
    model: ESTIMATE_MODEL,
    text: `${formatAbout(seconds)}${range} on an ${gpu.gpu} with ${ESTIMATE_MODEL}`,
  };
}

/** {@link estimateQuestion} of every strategy, in {@link STRATEGIES} order. */
export function estimateQuestions(options: { gpu?: GpuThroughput } = {}): QuestionEstimate[] {
  return STRATEGIES.map((strategy) => estimateQuestion(strategy, options));
}
