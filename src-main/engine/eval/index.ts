/** Evaluation harness: dataset readers, metrics, bootstrap statistics, the benchmark runner and its report. */
export { EvalRun } from './EvalRun.js';
export type {
  EvalRunOptions,
  EvalRunResult,
  EvalDependencies,
  EvalKb,
  BuiltKb,
  BuildKbOptions,
  AskRequest,
  EvalProgress,
  EvalStage,
} from './EvalRun.js';
export { sourceFingerprint } from './EvalRun.js';
export { writeEvalReport, loadEvalRun, summariseRuns } from './report.js';
export type { EvalReport, EvalReportOptions, ReportRow, LanguageRow, CostRow, LoadedRun } from './report.js';
export type { BesideRow } from './besidePapers.js';
export { PUBLISHED_RESULTS, publishedFor } from './publishedResults.js';
export type { PublishedFigure } from './publishedResults.js';
export type { EvalResultRow, EvalCost } from './EvalResultRow.js';
export type { EvalManifest } from './EvalManifest.js';
export { readDataset } from './datasets/readDataset.js';
export type { ReadDatasetOptions } from './datasets/readDataset.js';
export { DATASET_FORMATS } from './types.js';
export type { DatasetFormat, EvalDataset, EvalItem, EvalPassage, EvalKbSource } from './types.js';
export { exactMatch } from './metrics/exactMatch.js';
export { answerScriptFor, ANSWER_SCRIPTS } from './metrics/answerScript.js';
export type { AnswerScript } from './metrics/answerScript.js';
export { tokenF1 } from './metrics/tokenF1.js';
export { softExactMatch } from './metrics/softExactMatch.js';
export { rouge } from './metrics/rouge.js';
export { bleu, sentenceBleu, corpusBleu } from './metrics/bleu.js';
export { embeddingSimilarity } from './metrics/embeddingSimilarity.js';
export { llmJudge, JudgeReplySchema } from './metrics/llmJudge.js';
export { retrievalRecall } from './metrics/retrievalRecall.js';
export { scoreAnswer } from './metrics/scoreAnswer.js';
export { squadNormalise, normaliseAnswer, pythonSplit, stripCitations } from './metrics/normalise.js';
export { METRIC_ORDER, metricLabel } from './metrics/metricIds.js';
export { bootstrapMean, pairedBootstrap, BOOTSTRAP_DEFAULTS } from './stats/bootstrap.js';
export type { BootstrapEstimate, PairedBootstrapEstimate, BootstrapOptions } from './stats/bootstrap.js';
export { Prng } from './stats/Prng.js';
