import type { StrategyName } from '../qa/Answer.js';
import type { LlmUsage } from '../models/Llm.js';

/** Cost of producing one answer (from `Answer.usage`) or of the evaluator's own calls. */
export interface EvalCost {
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  cacheHits: number;
  ms: number;
}

/** One line of `results.jsonl`: one question asked through one strategy in one language. */
export interface EvalResultRow {
  /** Row format version. */
  v: 1;
  dataset: string;
  itemId: string;
  strategy: StrategyName;
  /** Language the question was asked (and the answer expected) in. */
  language: string;
  /** `match` when `language` is the knowledge base's language. */
  condition: 'match' | 'mismatch';
  question: string;
  /** The dataset's question when `question` is a translation. */
  originalQuestion?: string;
  translatedBy: 'original' | 'dataset' | 'llm';
  references: string[];
  supportingPassageIds?: string[];
  /** The explained answer; null when asking failed (see `error`). */
  answer: string | null;
  /** The short answer given with it (EM/F1 score it); absent when the strategy gave none (retrieval only) or the row predates it. */
  shortAnswer?: string;
  answerLanguage?: string;
  /** Passages the answer cites, in evidence rank order. */
  citedPassageIds: string[];
  /** The strategy's trace without step details. */
  trace: { step: string; llmCalls: number; promptTokens: number; completionTokens: number; ms: number }[];
  scores: Record<string, number>;
  judge?: { grade: number; reason: string };
  judgeError?: string;
  /** Answering cost (the strategy's own LLM calls and wall time). */
  cost: EvalCost;
  /** The evaluator's cost for this row (judge), kept apart from the strategy's. */
  evalCost: EvalCost;
  error?: { code: string; message: string };
  finishedAt: string;
}

/** Identity of a row: a resumed run skips keys already finished. */
export function rowKey(row: Pick<EvalResultRow, 'itemId' | 'strategy' | 'language'>): string {
  return JSON.stringify([row.itemId, row.language, row.strategy]);
}

export const ZERO_COST: EvalCost = Object.freeze({
  llmCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  cacheHits: 0,
  ms: 0,
});

/** Adds one LLM call to `total`: a cache hit counts as a hit, not as a call or tokens. */
export function addUsage(total: EvalCost, usage: LlmUsage): void {
  if (usage.cached) total.cacheHits++;
  else {
    total.llmCalls++;
    total.promptTokens += usage.promptTokens;
    total.completionTokens += usage.completionTokens;
    total.ms += Math.round(usage.durationMs);
  }
}
