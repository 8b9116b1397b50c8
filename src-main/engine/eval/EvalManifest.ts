import type { StrategyName } from '../qa/Answer.js';
import type { DatasetFormat } from './types.js';
import type { EvalCost } from './EvalResultRow.js';

/** `run.json`: what a run folder holds, so `polyhop eval report DIR` and a resume need nothing else. */
export interface EvalManifest {
  v: 1;
  dataset: {
    name: string;
    format: DatasetFormat;
    path: string;
    /** Language of the knowledge base (passages or graph): the "match" language. */
    kbLanguage: string;
    /** Hash of the selected questions and the KB source; a resume into a folder of another dataset is refused. */
    fingerprint: string;
    questions: number;
    passages: number;
    /** What the reader left out and why. */
    notes: string[];
  };
  strategies: StrategyName[];
  languages: string[];
  /** Strategies counted as baselines for Δ%. */
  baselines: StrategyName[];
  /** Identities of the models under test and judging, and the similarity model's name (absent in runs made before they were recorded). */
  models?: { generation?: string; judge?: string; similarity?: string };
  seed: number;
  bootstrapSamples: number;
  startedAt: string;
  updatedAt: string;
  /** Building the KB, when this run built it (absent when an existing KB was reused). */
  indexing?: { passages: number; cost: EvalCost; reused: boolean };
  /** Translation calls of the run. */
  translation: EvalCost;
}
