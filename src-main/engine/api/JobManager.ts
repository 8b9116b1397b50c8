import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { isCancellation, toErrorData } from '../base/errors.js';
import type { Events, JobKind, JobProgress, JobState, JobStatus } from './contract.js';

/** What a job body reports; the manager adds the job's identity, rate and ETA. */
export type ProgressUpdate = Partial<Omit<JobProgress, 'jobId' | 'kind' | 'kb' | 'rate' | 'etaSeconds'>> & {
  stage: string;
};

export interface JobContext {
  readonly jobId: string;
  readonly signal: AbortSignal;
  progress(update: ProgressUpdate): void;
  emit<E extends 'qa:token'>(event: E, payload: Events[E]): void;
}

export type EventSink = <E extends keyof Events>(event: E, payload: Events[E]) => void;

interface JobEntry {
  state: JobState;
  controller: AbortController;
  /** Set by pause(): the body stops like a cancel but the job ends as `paused`, resumable later. */
  pauseRequested: boolean;
  stageStartedAt: number;
  stageStartDone: number;
  lastEmit: number;
  promise: Promise<void>;
}

/**
 * Runs long operations (indexing, export, import, asking, downloads, benchmarks) as jobs:
 * a job id comes back at once; typed progress and a final event stream to every front door.
 */
export class JobManager {
  readonly #jobs = new Map<string, JobEntry>();
  readonly #emit: EventSink;
  /** Progress events are throttled to this interval per job (the last one always goes out). */
  readonly #progressIntervalMs: number;

  constructor(emit: EventSink, options: { progressIntervalMs?: number } = {}) {
    this.#emit = emit;
    this.#progressIntervalMs = options.progressIntervalMs ?? 100;
  }

  start(kind: JobKind, kb: string | null, body: (ctx: JobContext) => Promise<unknown>): string {
    const jobId = randomUUID();
    const controller = new AbortController();
    // Every call a job runs at once follows its signal (up to the concurrency setting, 64, or a
    // pool's slots): more than Node's default of 10 listeners is expected, not a leak.
    setMaxListeners(256, controller.signal);
    const entry: JobEntry = {
      state: { jobId, kind, kb, status: 'running', startedAt: new Date().toISOString(), progress: null, error: null },
      controller,
      pauseRequested: false,
      stageStartedAt: performance.now(),
      stageStartDone: 0,
      lastEmit: 0,
      promise: Promise.resolve(),
    };
    this.#jobs.set(jobId, entry);
    const ctx: JobContext = {
      jobId,
      signal: controller.signal,
      // A finished job says nothing more: whatever of it still reports is dropped (and is a bug).
      progress: (update) => {
        if (entry.state.status === 'running') this.#progress(entry, update);
      },
      emit: (event, payload) => {
        if (entry.state.status === 'running') this.#emit(event, payload);
      },
    };
    // Start on the next tick so the caller receives the job id before any event. The body's
    // promise settles only when all it started has settled (stages wait for their units), so
    // `job:finished` is the last event of the job and nothing of it writes afterwards.
    entry.promise = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => body(ctx))
      .then(
        (result) => this.#finish(entry, 'done', result),
        (error: unknown) => {
          if (isCancellation(error) || controller.signal.aborted)
            this.#finish(entry, entry.pauseRequested ? 'paused' : 'cancelled', null);
          else this.#finish(entry, 'failed', null, error);
        },
      )
      // A result or error that cannot be reported (a listener or serialisation throwing) must not
      // leave the job running for ever.
      .catch((error: unknown) => {
        console.error(`[polyhop] job ${jobId} could not report its end:`, error);
        if (entry.state.status === 'running') this.#finish(entry, 'failed', null, error);
      });
    return jobId;
  }

  cancel(jobId: string): boolean {
    const entry = this.#jobs.get(jobId);
    if (!entry || entry.state.status !== 'running') return false;
    entry.controller.abort();
    return true;
  }

  pause(jobId: string): boolean {
    const entry = this.#jobs.get(jobId);
    if (!entry || entry.state.status !== 'running') return false;
    entry.pauseRequested = true;
    entry.controller.abort();
    return true;
  }

  list(): JobState[] {
    return [...this.#jobs.values()].map((e) => structuredClone(e.state));
  }

  get(jobId: string): JobState | undefined {
    const entry = this.#jobs.get(jobId);
    return entry ? structuredClone(entry.state) : undefined;
  }

  /** Resolves when the job has ended (any status). */
  async settled(jobId: string): Promise<JobState | undefined> {
    await this.#jobs.get(jobId)?.promise;
    return this.get(jobId);
  }

  /** Cancels every running job and waits for them to stop. */
  async dispose(): Promise<void> {
    for (const entry of this.#jobs.values()) if (entry.state.status === 'running') entry.controller.abort();
    await Promise.all([...this.#jobs.values()].map((e) => e.promise));
  }

  #progress(entry: JobEntry, update: ProgressUpdate): void {
    const previous = entry.state.progress;
    const now = performance.now();
    if (!previous || previous.stage !== update.stage) {
      entry.stageStartedAt = now;
      entry.stageStartDone = update.done ?? 0;
    }
    const done = update.done ?? 0;
    const total = update.total ?? 0;
    const elapsed = (now - entry.stageStartedAt) / 1000;
    const rate = elapsed > 0 ? (done - entry.stageStartDone) / elapsed : 0;
    const progress: JobProgress = {
      jobId: entry.state.jobId,
      kind: entry.state.kind,
      kb: entry.state.kb,
      stage: update.stage,
      done,
      total,
      rate,
      etaSeconds: rate > 0 && total >= done ? (total - done) / rate : null,
      message: update.message ?? '',
      llmCalls: update.llmCalls ?? previous?.llmCalls ?? 0,
      promptTokens: update.promptTokens ?? previous?.promptTokens ?? 0,
      completionTokens: update.completionTokens ?? previous?.completionTokens ?? 0,
      cacheHits: update.cacheHits ?? previous?.cacheHits ?? 0,
    };
    entry.state.progress = progress;
    const stageChanged = previous?.stage !== progress.stage;
    if (stageChanged || done === total || now - entry.lastEmit >= this.#progressIntervalMs) {
      entry.lastEmit = now;
      this.#emit('job:progress', progress);
    }
  }

  #finish(entry: JobEntry, status: Exclude<JobStatus, 'running'>, result: unknown, error?: unknown): void {
    entry.state.error = error === undefined ? null : toErrorData(error);
    entry.state.status = status;
    if (status === 'failed' && !(error instanceof Error && 'code' in error))
      console.error(`[polyhop] job ${entry.state.jobId} failed:`, error);
    this.#emit('job:finished', {
      jobId: entry.state.jobId,
      kind: entry.state.kind,
      status,
      result,
      error: entry.state.error,
    });
  }
}
