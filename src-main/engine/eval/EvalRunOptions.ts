import type { StrategyName } from '../qa/Answer.js';
import type { EvalReport } from './report.js';
import type { DatasetFormat } from './types.js';

export type EvalStage = 'read' | 'translate' | 'index' | 'ask' | 'report';

export interface EvalProgress {
  stage: EvalStage;
  done: number;
  total: number;
  message: string;
  /** Rows found finished in `outDir` and skipped. */
  skipped: number;
  /** Rows whose answer failed so far. */
  failed: number;
}

export interface EvalRunOptions {
  datasetPath: string;
  format: DatasetFormat;
  strategies: StrategyName[];
  /** Languages to ask in; each question is translated into those it is not written in. Default: the dataset's language. */
  languages?: string[];
  /** Questions to use. Default: all. */
  limit?: number;
  /** Which questions `limit` keeps. Default: `first`. */
  sample?: 'first' | 'random';
  /** Run folder: run.json, results.jsonl, llm-cache.jsonl, report.md, summary.json, charts/. */
  outDir: string;
  /** Report label of the dataset. Default: the format or file name. */
  datasetName?: string;
  /** Language of the dataset's questions when the file does not say. */
  datasetLanguage?: string;
  /** A HippoRAG corpus to index instead of the questions' own paragraphs. */
  corpusPath?: string;
  /** MSE-KG graph file. Default: Output.ttl beside the questions. */
  graphPath?: string;
  /** Baselines for Δ% in the report. Default: `vector`, `llm-only`. */
  baselines?: StrategyName[];
  /** LLM-as-judge (needs `llm`). Default: true. */
  judge?: boolean;
  /** Recall@k cut-offs. Default: [2, 5]. */
  recallAt?: number[];
  /** Questions in flight at once. Default: 1 (each strategy already spreads its calls over the model's sequences). */
  concurrency?: number;
  /** Seed of the sample and the bootstrap. Default: 1. */
  seed?: number;
  /** Bootstrap resamples. Default: 10,000. */
  bootstrapSamples?: number;
  /** Write report.md and charts when done. Default: true. */
  report?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
}

export interface EvalRunResult {
  outDir: string;
  /** Rows asked in this call. */
  asked: number;
  /** Rows found finished and skipped. */
  skipped: number;
  /** Rows of this call whose answer failed (kept with `error`, retried by the next resume). */
  failed: number;
  report: EvalReport | null;
}
