export {
  calibrateSimilarity,
  needsCalibration,
  PAPER_THRESHOLDS,
  type CalibrateSimilarityOptions,
  type ThresholdMode,
} from './calibrateSimilarity.js';
export { calibrateKb } from './calibrateKb.js';
