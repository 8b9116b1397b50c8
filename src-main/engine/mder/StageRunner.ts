import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent } from '../base/concurrency.js';
import { UsageMeter } from '../models/UsageMeter.js';
import type { MeteredLlm } from './MeteredLlm.js';
import type { IndexingJobOptions, StageStats } from './indexingTypes.js';
import { PolyhopError } from '../base/errors.js';
import { asUnitFailure, type MderStage, type UnitFailure } from './unitFailure.js';

/** What a {@link StageRunner} reads of the job's options. */
export type StageRunnerOptions = Pick<
  IndexingJobOptions,
  'signal' | 'concurrency' | 'onProgress' | 'progressIntervalMs'
>;

/**
 * Runs the stages of one indexing run: meters each stage's model use, reports its progress, and
 * records the units that failed (by stage and by document).
 */
export class StageRunner {
  readonly #llm: MeteredLlm;
  readonly #options: StageRunnerOptions;
  readonly #failures: UnitFailure[] = [];
  readonly #docFailures = new Map<number, UnitFailure[]>();
  readonly #stages: Partial<Record<MderStage, StageStats>> = {};

  constructor(llm: MeteredLlm, options: StageRunnerOptions) {
    this.#llm = llm;
    this.#options = options;
  }

  /** Every unit recorded as failed, in order. */
  get failures(): UnitFailure[] {
    return this.#failures;
  }

  /** The stages run so far, with their figures. */
  get stages(): Partial<Record<MderStage, StageStats>> {
    return this.#stages;
  }

  /** The failures attributed to a document, in order. */
  failuresOf(documentId: number): readonly UnitFailure[] {
    return this.#docFailures.get(documentId) ?? [];
  }

  /**
   * Runs the units of one stage concurrently; a unit whose model output stays invalid is
   * recorded (and attributed to its document when it has one) and the stage goes on. With
   * `retryFailed`, such a unit is asked once more at the end of the stage (`run` gets its first
   * failure, to sample another way and to shrink its input where it failed for length), and only
   * a second failure is recorded: a unit does not wait for the next run to be asked again.
   *
   * Anything else (a cancel, a crashed backend, a bug) stops the stage: `run` gets a signal that
   * then aborts, so sibling calls in flight stop too, and the stage rejects only after every unit
   * it started has settled. Each unit writes its result in one transaction after its model calls,
   * so a unit that was stopped wrote nothing and the job writes nothing once it has ended.
   */
  async units<T>(
    stage: MderStage,
    units: readonly T[],
    run: (unit: T, signal: AbortSignal, retry: UnitRetry | null) => Promise<void>,
    name: (unit: T) => string,
    /** The document a failed unit is recorded against; a unit of several documents (a Preprocess batch) fails each. */
    documentOf?: (unit: T) => number | readonly number[],
    options: { retryFailed?: boolean } = {},
  ): Promise<void> {
    await this.stage(stage, units.length, async (tick) => {
      const stopping = this.#options.signal ? { signal: this.#options.signal } : {};
      const parallel = this.#options.concurrency ?? this.#llm.parallelism;
      const again: { unit: T; retry: UnitRetry }[] = [];
      const attempt = async (unit: T, signal: AbortSignal, retry: UnitRetry | null): Promise<void> => {
        throwIfAborted(signal);
        try {
          await run(unit, signal, retry);
        } catch (error) {
          const failure = asUnitFailure(error, stage, name(unit));
          if (options.retryFailed && retry === null && retryable(error)) {
            again.push({ unit, retry: { error: error as PolyhopError, forLength: failedForLength(error) } });
            return;
          }
          this.fail(stage, failure, documentOf?.(unit));
        }
        tick();
      };
      await mapConcurrent(units, parallel, (unit, _index, signal) => attempt(unit, signal, null), stopping);
      await mapConcurrent(again, parallel, (a, _index, signal) => attempt(a.unit, signal, a.retry), stopping);
    });
  }

  /** One failed unit, recorded against each document it held (its own, or `failure.details.documentId`). */
  fail(stage: MderStage, failure: UnitFailure, documents?: number | readonly number[]): void {
    this.#failures.push(failure);
    this.#stages[stage]!.failed++;
    const ids = documents ?? (failure.details.documentId as number | undefined);
    for (const docId of ids === undefined ? [] : typeof ids === 'number' ? [ids] : ids)
      this.#docFailures.set(docId, [...(this.#docFailures.get(docId) ?? []), failure]);
  }

  async stage(
    stage: MderStage,
    total: number,
    body: (tick: (n?: number) => void, setTotal: (total: number, done: number) => void) => Promise<void>,
  ): Promise<void> {
    const meter = new UsageMeter();
    const stats: StageStats = { ...meter.snapshot(), units: total, failed: 0, wallMs: 0 };
    this.#stages[stage] = stats;
    this.#llm.meter = meter;
    const started = performance.now();
    const interval = this.#options.progressIntervalMs ?? 250;
    let done = 0;
    let lastEmit = -Infinity;
    const emit = (force: boolean): void => {
      const now = performance.now();
      if (!this.#options.onProgress || (!force && now - lastEmit < interval)) return;
      lastEmit = now;
      Object.assign(stats, meter.snapshot());
      const seconds = (now - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      this.#options.onProgress({
        stage,
        done,
        total: stats.units,
        rate,
        etaSeconds: rate > 0 ? Math.max(0, stats.units - done) / rate : null,
        message: stats.failed > 0 ? `${stats.failed} failed` : '',
        llmCalls: stats.calls,
        promptTokens: stats.promptTokens,
        completionTokens: stats.completionTokens,
        cacheHits: stats.cacheHits,
      });
    };
    emit(true);
    await body(
      (n = 1) => {
        done += n;
        emit(done === stats.units);
      },
      (newTotal, newDone) => {
        stats.units = newTotal;
        done = newDone;
        emit(false);
      },
    );
    Object.assign(stats, meter.snapshot(), { wallMs: performance.now() - started });
    emit(true);
  }
}

/** A unit asked again at the end of its stage: why its first attempt failed. */
export interface UnitRetry {
  error: PolyhopError;
  /**
   * It failed for length: its prompt did not fit the context, or its reply was cut at its
   * budget. The stage asks again with less input.
   */
  forLength: boolean;
}

/**
 * A failure another sample or a smaller input may not repeat: an invalid reply, or BAD_INPUT, which
 * a model says of a prompt its context refused (LlamaCppLlm's "does not fit the N-token context",
 * an inference server's context overflow, see models/endpoints/endpointErrors.ts).
 */
function retryable(error: unknown): boolean {
  return error instanceof PolyhopError && (error.code === 'LLM_OUTPUT_INVALID' || error.code === 'BAD_INPUT');
}

/** The prompt did not fit the context (BAD_INPUT), or the reply stopped at `maxTokens`. */
export function failedForLength(error: unknown): boolean {
  if (!(error instanceof PolyhopError)) return false;
  if (error.code === 'BAD_INPUT') return true;
  return (
    error.code === 'LLM_OUTPUT_INVALID' && /maxTokens/.test(`${error.message} ${String(error.details.reason ?? '')}`)
  );
}
