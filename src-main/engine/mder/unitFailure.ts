import { isCancellation, PolyhopError } from '../base/errors.js';

export type MderStage = 'preprocess' | 'map' | 'disambiguate' | 'enrich' | 'reduce' | 'embed' | 'rdf';

/** A unit of a stage (chunk, pair batch, entity batch) whose output stayed invalid; recorded, never dropped. */
export interface UnitFailure {
  stage: MderStage;
  /** Human-readable name of the unit, e.g. `chunk 12 of "odyssey.txt"`. */
  unit: string;
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/**
 * Turns a stage error into a recorded unit failure. Cancellation and bugs (non-Polyhop errors)
 * are rethrown: the first stops the job cleanly, the second must not be hidden as a data problem.
 */
export function asUnitFailure(
  error: unknown,
  stage: MderStage,
  unit: string,
  details: Record<string, unknown> = {},
): UnitFailure {
  if (isCancellation(error) || !(error instanceof PolyhopError)) throw error;
  return { stage, unit, code: error.code, message: error.message, details: { ...details, ...error.details } };
}

/** One line for a document's error field: stage, unit and reason. */
export function describeFailure(f: UnitFailure): string {
  return `${f.stage}: ${f.unit}: ${f.message}`;
}

/** Items of a unit that the model left without a text after their retries (the rest of the unit was written). */
export function missFailure(stage: MderStage, unit: string, missed: readonly Record<string, unknown>[]): UnitFailure {
  const reasons = [...new Set(missed.map((m) => String(m.reason)))];
  return {
    stage,
    unit,
    code: 'LLM_OUTPUT_INVALID',
    message: `no usable reply after retries: ${reasons.slice(0, 3).join('; ')}`,
    details: { missed },
  };
}
