import type { LlmUsage } from './Llm.js';

export interface UsageTotals {
  /** Calls that ran the model (cache hits excluded). */
  calls: number;
  /** Calls answered from the call cache. */
  cacheHits: number;
  /** Tokens of calls that ran the model. */
  promptTokens: number;
  completionTokens: number;
  /** Model time of calls that ran it. */
  ms: number;
}

/**
 * Adds up LLM usage. Scopes nest: a meter made by {@link child} (one per job, question or
 * stage) records into itself and every ancestor, so the app-wide totals and a job's totals
 * come from the same calls without double bookkeeping.
 *
 * ```ts
 * const job = appMeter.child();
 * const llm = cachingLlm.withMeter(job); // calls through llm count for job and app
 * ```
 */
export class UsageMeter {
  readonly #parent: UsageMeter | undefined;
  #totals: UsageTotals = emptyUsage();

  constructor(parent?: UsageMeter) {
    this.#parent = parent;
  }

  child(): UsageMeter {
    return new UsageMeter(this);
  }

  record(usage: LlmUsage): void {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walks up the chain of meters from this one
    for (let m: UsageMeter | undefined = this; m; m = m.#parent) {
      const t = m.#totals;
      if (usage.cached) t.cacheHits++;
      else {
        t.calls++;
        t.promptTokens += usage.promptTokens;
        t.completionTokens += usage.completionTokens;
        t.ms += usage.durationMs;
      }
    }
  }

  snapshot(): UsageTotals {
    return { ...this.#totals };
  }

  /** What was recorded since `earlier` (a snapshot of this meter), e.g. for one trace step. */
  since(earlier: UsageTotals): UsageTotals {
    const now = this.#totals;
    return {
      calls: now.calls - earlier.calls,
      cacheHits: now.cacheHits - earlier.cacheHits,
      promptTokens: now.promptTokens - earlier.promptTokens,
      completionTokens: now.completionTokens - earlier.completionTokens,
      ms: now.ms - earlier.ms,
    };
  }
}

export function emptyUsage(): UsageTotals {
  return { calls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
}
