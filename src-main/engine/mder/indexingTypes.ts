import type { Embedder } from '../models/Embedder.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { UsageTotals } from '../models/UsageMeter.js';
import type { DocumentStatus } from '../kb/index.js';
import type { PreprocessOptions } from '../ingest/preprocess/index.js';
import type { StageProgress } from '../base/progress.js';
import type { DisambiguateOptions, MergeGroup } from './disambiguationTypes.js';
import type { ReduceBatchingOptions } from './reduceEntities.js';
import type { ThresholdMode } from './calibration/index.js';
import type { MderStage, UnitFailure } from './unitFailure.js';

/** Progress of one stage (the job runner adds the job's identity). LLM figures are per stage. */
export type IndexingProgress = StageProgress;

/** What a job changed, for the RDF view to follow. */
export interface IndexingChanges {
  /** Documents this job worked on (their chunks, triples and statuses may have changed). */
  documentIds: number[];
  /** Entities merged away by Disambiguate (gone from SQLite; their RDF nodes must go too). */
  mergedEntityIds: number[];
}

export interface IndexingJobOptions {
  prompts: PromptLibrary;
  /** Embeds chunks, entity names, summaries and triples; must match the KB's recorded embedder. */
  embedder: Embedder;
  /** Called as units finish (at most every `progressIntervalMs` per stage, plus each stage's start and end). */
  onProgress?: (progress: IndexingProgress) => void;
  /** Default: 250. */
  progressIntervalMs?: number;
  /**
   * Cancels the job; checkpoints stay, so pausing is cancelling and resuming is running again.
   * The run rejects with CancelledError.
   */
  signal?: AbortSignal;
  preprocess?: Pick<PreprocessOptions, 'summarise' | 'summaryInSourceLanguage' | 'maxTokens'> & {
    /**
     * Documents of one chunk summarised per call at most (`ingest/summarise-batch`), all of one
     * language (the prompt names it); chunks with neighbours, or summarised in their own language,
     * are asked one per call. 1: one call per chunk. Default: 8.
     */
    chunksPerCall?: number;
  };
  map?: { /** Default: 2048. */ maxTokens?: number };
  /** `threshold` set here wins over {@link thresholds}. */
  disambiguate?: Pick<DisambiguateOptions, 'threshold' | 'neighbours' | 'pairsPerCall' | 'contextChars' | 'maxTokens'>;
  /**
   * Disambiguate's name-similarity threshold: fitted to the embedder on this KB (recorded with it,
   * see mder/calibration) or the paper's 0.95. Default: 'calibrated'.
   */
  thresholds?: ThresholdMode;
  enrich?: {
    /** Default: 96. */
    maxTokensPerTriple?: number;
    /** Other provenance chunks of a chunk's triples shown as context. Default: 2. */
    maxOtherChunks?: number;
    /** Characters of each neighbour / other chunk shown. Default: 1500. */
    contextChars?: number;
    /** Triples described per call at most (a chunk with more is split). Default: 24. */
    maxTriplesPerCall?: number;
  };
  reduce?: ReduceBatchingOptions & {
    /** Completion budget of one summary at most (its length grows with the entity's facts up to this). Default: 496. */
    maxTokensPerEntity?: number;
    /** An entity whose triples share one description (a single triple, or several of one sentence) takes it as its summary, without a call. Default: true. */
    copySingleFact?: boolean;
  };
  /** Texts per embedder call. Default: 32. */
  embedBatchSize?: number;
  /** Parallel LLM calls per stage. Default: llm.parallelism. */
  concurrency?: number;
  /**
   * Updates the RDF view after SQLite is final (last stage). The lead wires the RDF helper's
   * updater here; when absent the stage is skipped and the view is rebuilt elsewhere.
   */
  updateRdfView?: (changes: IndexingChanges, signal?: AbortSignal) => Promise<void>;
}

/** One stage of a run: LLM usage (calls that ran a model, cache hits, their tokens and model time) and units. */
export interface StageStats extends UsageTotals {
  /** Units the stage had to do in this run (finished ones from earlier runs are not counted). */
  units: number;
  /** Units recorded as failed. */
  failed: number;
  /** Wall time of the stage (`ms` is model time). */
  wallMs: number;
}

export interface IndexingResult {
  documents: { id: number; status: DocumentStatus; error: string | null }[];
  stages: Partial<Record<MderStage, StageStats>>;
  /** Every unit whose output stayed invalid, in order; document-level ones are also in the document's error. */
  failures: UnitFailure[];
  merges: MergeGroup[];
}
