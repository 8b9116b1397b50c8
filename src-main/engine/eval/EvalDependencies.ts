import type { Answer, Citation, StrategyName } from '../qa/Answer.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { EvalCost } from './EvalResultRow.js';
import type { EvalKbSource } from './types.js';

/** The knowledge base a run asks its questions against, as the caller built it. */
export interface EvalKb {
  /** For the manifest and logs. */
  readonly name: string;
  /** The dataset passage (EvalPassage.id) a citation points at; undefined for anything else. Drives recall@k. */
  passageIdOf(citation: Citation): string | undefined;
}

export interface BuildKbOptions {
  /** Hash of the source: the same fingerprint may reuse a KB built before. */
  fingerprint: string;
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; total: number; message: string }) => void;
}

export interface BuiltKb<K extends EvalKb> {
  kb: K;
  /** True when an existing KB was reused and nothing was indexed. */
  reused: boolean;
  /** Indexing cost (LLM calls, tokens, wall time). */
  cost?: EvalCost;
}

export interface AskRequest {
  question: string;
  strategy: StrategyName;
  /** The language the answer must be in: the question's. */
  answerLanguage: string;
  signal?: AbortSignal;
}

/**
 * What a run needs from the rest of the engine, passed in so eval depends on no particular
 * QA or indexing implementation (the Api wires `qa.ask` and an MDER indexing job).
 */
export interface EvalDependencies<K extends EvalKb = EvalKb> {
  /** Builds, or reuses by fingerprint, the KB of the dataset's passages; imports the graph for an `rdf` source. */
  buildKb(source: EvalKbSource, options: BuildKbOptions): Promise<BuiltKb<K>>;
  /** Answers one question with one strategy (`qa.ask`). */
  ask(kb: K, request: AskRequest): Promise<Answer>;
  /** Translates questions and judges answers; null: no judge, and only the dataset's own (or shipped) languages. */
  llm: Llm | null;
  /** The judge, when it is another model than `llm` (the papers judged with a stronger model than the one under test). Default: `llm`. */
  judgeLlm?: Llm;
  prompts: PromptLibrary;
  /** Embedding similarity when given, with the model's name for the report (e.g. `all-MiniLM-L6-v2`). */
  similarity?: { embedder: Embedder; name: string };
}
