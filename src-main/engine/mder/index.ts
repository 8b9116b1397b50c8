export { IndexingJob } from './IndexingJob.js';
export type {
  IndexingJobOptions,
  IndexingProgress,
  IndexingResult,
  IndexingChanges,
  StageStats,
} from './indexingTypes.js';
export { mapChunk, MapReplySchema } from './mapChunk.js';
export type { MapResult, MapOptions, ExtractedEntity, ExtractedTriple } from './mapChunk.js';
export { disambiguate, planMerges } from './disambiguate.js';
export type {
  DisambiguateOptions,
  DisambiguateResult,
  DisambiguationStore,
  DisambiguationEntity,
  MergeGroup,
} from './disambiguationTypes.js';
export { enrichChunk } from './enrichChunk.js';
export type { EnrichInput, EnrichOptions, EnrichResult } from './enrichChunk.js';
export { planReduceUnits, reduceUnit } from './reduceEntities.js';
export type {
  ReduceEntity,
  ReduceUnit,
  ReduceUnitResult,
  ReduceOptions,
  ReduceBatchingOptions,
} from './reduceEntities.js';
export { normaliseRelation, tripleText } from './names.js';
export type { MderStage, UnitFailure } from './unitFailure.js';
export { calibrateKb, calibrateSimilarity, PAPER_THRESHOLDS, type ThresholdMode } from './calibration/index.js';
