/** An answer and what it rests on: what `qa/` produces, the history stores and the Api shows. */

export const STRATEGIES = ['dr', 'hyp', 'dapt', 'vector', 'llm-only'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export interface Citation {
  documentId: number;
  documentTitle: string;
  chunkId: number;
  page: number | null;
  startOffset: number;
  endOffset: number;
}

export interface Evidence {
  kind: 'summary' | 'triple' | 'chunk';
  text: string;
  /** Entity name, triple, or chunk label. */
  label: string;
  score: number;
  citations: Citation[];
}

export interface TraceStep {
  step: string;
  detail: unknown;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
}

export interface Answer {
  question: string;
  questionLanguage: string;
  answerLanguage: string;
  strategy: StrategyName;
  /** The explained answer with `[n]` citations. */
  text: string;
  /**
   * The bare answer (entity, date, number, yes/no or short phrase) given with `text` in the same
   * call; empty when the model found none. Absent in retrieval-only mode and in answers stored
   * before it existed.
   */
  shortAnswer?: string;
  /** True when no generation model ran: `text` lists ranked evidence only. */
  retrievalOnly: boolean;
  evidence: Evidence[];
  trace: TraceStep[];
  usage: { llmCalls: number; promptTokens: number; completionTokens: number; cacheHits: number; ms: number };
}

export interface HistoryEntry {
  id: number;
  askedAt: string;
  answer: Answer;
}
