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
  /** Entity id (summary), triple id or chunk/passage id; absent in answers stored before it was kept. */
  id?: number;
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
  /** The thread and turn it was filed under, when asked in a thread. */
  thread?: ThreadRef;
}

export interface HistoryEntry {
  id: number;
  askedAt: string;
  answer: Answer;
  /** Set once a document the answer cites was re-indexed or removed: ask again for a current answer. */
  stale: AnswerStaleness | null;
}

/**
 * Why and since when an answer no longer rests on the documents it cites: the KB's record of it
 * (kb/AnswerGraphRepository.ts), restated because contract types import nothing.
 */
export interface AnswerStaleness {
  at: string;
  reason: 'reindexed' | 'removed';
  documentId: number;
  documentTitle: string;
}

// ── threads: a conversation over one KB, what follow-ups are rewritten from ──

export interface ThreadSummary {
  id: number;
  title: string;
  createdAt: string;
  /** When its latest turn was asked (its creation while it has none). */
  updatedAt: string;
  turnCount: number;
  /** The latest turn's question as asked; null while it has none. */
  lastQuestion: string | null;
}

export interface ThreadTurn {
  id: number;
  /** 1 for the first turn. */
  position: number;
  /** As the asker wrote it ("and where was she born?"). */
  question: string;
  /** What retrieval and the strategy ran on: the first turn's question, or a follow-up rewritten from the thread. */
  standaloneQuestion: string;
  historyId: number | null;
  askedAt: string;
  /** Null when its history entry is gone. */
  answer: Answer | null;
  stale: AnswerStaleness | null;
}

export interface Thread extends ThreadSummary {
  turns: ThreadTurn[];
}

/** Where an answer was filed in its thread (set by the Api on an answer asked in a thread). */
export interface ThreadRef {
  id: number;
  title: string;
  turnId: number;
  position: number;
}

/**
 * A follow-up made standalone before it is asked. `how`: `first-turn` (nothing to rewrite from),
 * `model` (the model's rewrite, accepted), `fallback` (no model, or its rewrite was unusable: the
 * follow-up with the previous turn appended), `asker` (the asker's own edit of it).
 */
export interface FollowUpRewrite {
  followUp: string;
  standalone: string;
  how: 'first-turn' | 'model' | 'fallback' | 'asker';
  /** ISO 639 code of the follow-up; its answer is written in it unless the asker chose one. */
  language: string;
  /** The `rewrite` trace step with its LLM call and tokens; the answer's trace starts with it. */
  step: TraceStep;
  usage: Answer['usage'];
}

export const THREAD_EXPORT_FORMATS = ['markdown', 'json'] as const;
export type ThreadExportFormat = (typeof THREAD_EXPORT_FORMATS)[number];

/** A plan-ahead time for one question (qa/questionEstimate.ts), from no reasoning to every reasoning step spending its budget. */
export interface QuestionEstimate {
  strategy: StrategyName;
  /** Without reasoning. */
  seconds: number;
  /** With every reasoning step spending its whole budget (the default policy's upper bound). */
  reasoningSeconds: number;
  rounded: { hours: number; minutes: number; seconds: number };
  reasoningRounded: { hours: number; minutes: number; seconds: number };
  /** The GPU (published llama.cpp rates, see models/gpuThroughput.ts) and catalog model the time is for. */
  gpu: string;
  model: string;
  /** "about 3 s (up to about 43 s with reasoning) on an RTX 3090 with Qwen3-8B Q4_K_M". */
  text: string;
}
