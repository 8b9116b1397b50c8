import type { EvalCost } from './EvalResultRow.js';
import type { BootstrapEstimate } from './stats/bootstrap.js';

export type Condition = 'match' | 'mismatch';

/** One table row: a dataset, a metric and a language condition, with every strategy's estimate. */
export type ReportRow = {
  dataset: string;
  metric: string;
  metricLabel: string;
  condition: Condition;
  cells: Record<string, BootstrapEstimate>;
  /** Best non-baseline vs best baseline (by mean), where the run has both. */
  delta: {
    best: string;
    baseline: string;
    percent: number | null;
    meanDiff: number;
    se: number;
    /** MDER-DR's rule: the paired difference is beyond one standard error of it (|mean diff| > SE). */
    beyondOneSigma: boolean;
    /** Two-sided paired-bootstrap p-value of no difference. */
    p: number;
    n: number;
  } | null;
};

export type LanguageRow = {
  dataset: string;
  language: string;
  condition: Condition;
  metric: string;
  cells: Record<string, BootstrapEstimate>;
};

/** `judgeFailures`: answers whose judge reply failed its schema after a retry (scored 0, not left out). */
export type CostRow = {
  dataset: string;
  strategy: string;
  questions: number;
  failed: number;
  judgeFailures: number;
  perQuestion: EvalCost;
};
