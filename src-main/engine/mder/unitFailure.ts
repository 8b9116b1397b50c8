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

/** Failure reasons with how many units each stopped, most frequent first (ties in first-seen order). */
export function groupFailureReasons(reasons: readonly string[]): { reason: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
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
