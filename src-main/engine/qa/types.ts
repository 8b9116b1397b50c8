import type { Answer, StrategyName } from './Answer.js';
import type { KnowledgeBase } from '../kb/KnowledgeBase.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { EvidenceItem } from './EvidencePool.js';
import type { QaRun } from './QaRun.js';
import type { QaSettings } from './settings.js';
import type { FollowUpRewrite } from './Answer.js';

/** The read side of a knowledge base that answering uses (a `KnowledgeBase` is one). */
export type QaKb = Pick<KnowledgeBase, 'documents' | 'graph' | 'vectors' | 'textIndex' | 'partialSummaries'>;

/** Everything a question is answered with. One per KB and loaded models; cheap to build per question. */
export interface QaContext {
  kb: QaKb;
  /** The generation model; null puts every question in retrieval-only mode. */
  llm: Llm | null;
  /** Must be the embedder the KB's vectors were made with (the api checks `kb.assertEmbedder`). */
  embedder: Embedder;
  prompts: PromptLibrary;
  /** Default: QA_DEFAULTS (see `resolveQaSettings` for user overrides). */
  settings?: QaSettings;
}

export interface AskOptions {
  strategy: StrategyName;
  /** ISO 639-1/3 code of the answer; default: the question's detected language. */
  answerLanguage?: string;
  /** The user's interface language: a hint for a question too short or too full of names to tell (see `guessLanguage`). */
  uiLanguage?: string;
  /** Rank evidence without generating even when a model is loaded. Default: false. */
  retrievalOnly?: boolean;
  /** Aborts between steps and inside LLM calls; `ask` then rejects with CancelledError. */
  signal?: AbortSignal;
  /** Receives the final answer's text as the model writes it (api: `qa:token` events). Intermediate calls never stream. */
  onTextChunk?: (text: string) => void;
  /**
   * What streamed so far is void and the answer streams anew (a retried reply; at the end, the
   * finished answer when it reads otherwise than what streamed). The text after the last restart,
   * trimmed, is the answer's `text`.
   */
  onTextRestart?: () => void;
  /** The follow-up rewrite this question came from (see `rewriteFollowUp`): its step heads the trace, its tokens count. */
  rewrite?: Pick<FollowUpRewrite, 'step' | 'usage'>;
}

/** What a strategy returns; `ask` adds language, usage and the trace to make the contract's `Answer`. */
export interface StrategyResult {
  /** The explained answer, with `[n]` citations of `evidence`. */
  text: string;
  /** The bare answer (entity, date, number, yes/no, phrase) the final step gave beside `text`; absent in retrieval-only mode. */
  shortAnswer?: string;
  evidence: readonly EvidenceItem[];
}

/** One answering method. Strategies get a per-question {@link QaRun} (context, meter, trace, LLM helpers). */
export interface Strategy {
  readonly name: StrategyName;
  /** False for `llm-only`: it cannot run in retrieval-only mode. */
  readonly usesRetrieval: boolean;
  answer(run: QaRun): Promise<StrategyResult>;
}

export type { Answer };
