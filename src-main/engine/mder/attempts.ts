import type { KnowledgeBase } from '../kb/index.js';
import type { LlmCallOptions } from '../models/Llm.js';
import type { MderStage } from './unitFailure.js';

/** Sampling settings of a call. */
export type CallSampling = Pick<LlmCallOptions, 'temperature' | 'seed'>;

/** Temperature of a unit asked again after a failed run: enough to leave the greedy answer. */
const RETRY_TEMPERATURE = 0.5;

/**
 * How often a unit (a chunk, an entity) failed in earlier runs, kept with the KB. A greedy call
 * repeats its output, and a failure is never cached, so without this every run would ask the
 * same question the same way and get the same failure: a unit that failed before is sampled, with
 * another seed each run.
 */
export class Attempts {
  readonly #kb: KnowledgeBase;
  readonly #stage: MderStage;

  constructor(kb: KnowledgeBase, stage: MderStage) {
    this.#kb = kb;
    this.#stage = stage;
  }

  /** Failed runs of the unit so far. */
  count(unit: number): number {
    return this.#kb.jobState.getCheckpoint<number>(this.#key(unit)) ?? 0;
  }

  /** Greedy for a unit that never failed; else sampled with a seed of this attempt. */
  sampling(unit: number): CallSampling {
    return samplingFor(this.count(unit));
  }

  failed(unit: number): void {
    this.#kb.jobState.setCheckpoint(this.#key(unit), this.count(unit) + 1);
  }

  succeeded(unit: number): void {
    // The trailing ':' keeps unit 1's key from being a prefix of unit 12's.
    this.#kb.jobState.clearCheckpoints(this.#key(unit));
  }

  #key(unit: number): string {
    return `mder:attempts:${this.#stage}:${unit}:`;
  }
}

/** The sampling of a unit's attempt after `failures` failed runs. */
export function samplingFor(failures: number): CallSampling {
  return failures === 0 ? {} : { temperature: RETRY_TEMPERATURE, seed: failures };
}
