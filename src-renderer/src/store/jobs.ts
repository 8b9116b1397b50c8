import { create } from 'zustand';
import type { ErrorData, JobKind, JobProgress, JobState, JobStatus, PolyhopEvent } from '../../api/index.js';
import { api } from '../../api/index.js';

/** A job as the UI knows it: its latest progress per stage, in the order stages appeared. */
export interface JobView {
  jobId: string;
  kind: JobKind;
  kb: string | null;
  status: JobStatus;
  stages: string[];
  progress: Record<string, JobProgress>;
  latest: JobProgress | null;
  result: unknown;
  error: ErrorData | null;
  /** Streamed answer text (ask jobs), provisional: the job's result replaces it. */
  text: string;
  /**
   * The latest wait an inference server caused while the job ran (busy, loading, backing off), as
   * the engine words it; null when none. Endpoint notices name no job: the running jobs share the
   * servers, so each running job shows it.
   */
  notice: string | null;
}

interface JobsState {
  jobs: Record<string, JobView>;
  /** Registers a job just started by this window, before its first event arrives. */
  track(jobId: string, kind: JobKind, kb: string | null): void;
  /** Loads jobs the engine is running (after a reload of the page). */
  sync(): Promise<void>;
}

function blank(jobId: string, kind: JobKind, kb: string | null): JobView {
  return {
    jobId,
    kind,
    kb,
    status: 'running',
    stages: [],
    progress: {},
    latest: null,
    result: undefined,
    error: null,
    text: '',
    notice: null,
  };
}

export const useJobs = create<JobsState>()((set) => ({
  jobs: {},
  track(jobId, kind, kb) {
    set((s) => (s.jobs[jobId] ? s : { jobs: { ...s.jobs, [jobId]: blank(jobId, kind, kb) } }));
  },
  async sync() {
    const list: JobState[] = await api().call('jobs:list', {});
    set((s) => {
      const jobs = { ...s.jobs };
      for (const job of list) {
        const view = jobs[job.jobId] ?? blank(job.jobId, job.kind, job.kb);
        const progress = job.progress;
        jobs[job.jobId] = {
          ...view,
          status: job.status,
          error: job.error,
          ...(progress
            ? {
                latest: progress,
                progress: { ...view.progress, [progress.stage]: progress },
                stages: view.stages.includes(progress.stage) ? view.stages : [...view.stages, progress.stage],
              }
            : {}),
        };
      }
      return { jobs };
    });
  },
}));

/**
 * Events are applied in batches (every 100 ms at most) so a fast stream of progress or tokens
 * costs one render per batch, keeping input responsive while a job runs.
 */
let queue: PolyhopEvent[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  useJobs.setState((s) => ({ jobs: applyJobEvents(s.jobs, batch) }));
}

/** Failed units of a finished index job (its result's `failed`, `units`, `failureReasons`); null when none failed. */
export function failedUnits(
  job: JobView,
): { failed: number; units: number; reasons: { reason: string; count: number }[] } | null {
  if (job.kind !== 'index' || job.status !== 'done') return null;
  const r = job.result as {
    failed?: number;
    units?: number;
    failureReasons?: { reason: string; count: number }[];
  } | null;
  if (!r || !r.failed) return null;
  return { failed: r.failed, units: r.units ?? r.failed, reasons: r.failureReasons ?? [] };
}

/** The jobs after a batch of engine events, in order (a `reset` token restarts the streamed text). */
export function applyJobEvents(
  current: Record<string, JobView>,
  batch: readonly PolyhopEvent[],
): Record<string, JobView> {
  const jobs = { ...current };
  for (const event of batch) {
    // Not a job's event (the Corpus screen follows watches).
    if (event.name === 'watch:synced') continue;
    if (event.name === 'endpoint:notice') {
      for (const [id, view] of Object.entries(jobs))
        if (view.status === 'running') jobs[id] = { ...view, notice: event.payload.message };
      continue;
    }
    const id = event.payload.jobId;
    if (event.name === 'job:progress') {
      const p = event.payload;
      const view = jobs[id] ?? blank(id, p.kind, p.kb);
      jobs[id] = {
        ...view,
        status: view.status === 'paused' ? 'running' : view.status,
        latest: p,
        progress: { ...view.progress, [p.stage]: p },
        stages: view.stages.includes(p.stage) ? view.stages : [...view.stages, p.stage],
      };
    } else if (event.name === 'job:finished') {
      const p = event.payload;
      const view = jobs[id] ?? blank(id, p.kind, null);
      jobs[id] = { ...view, status: p.status, result: p.result, error: p.error };
    } else {
      const view = jobs[id] ?? blank(id, 'ask', null);
      jobs[id] = { ...view, text: event.payload.reset ? event.payload.text : view.text + event.payload.text };
    }
  }
  return jobs;
}

function enqueue(event: PolyhopEvent): void {
  queue.push(event);
  if (!scheduled) {
    scheduled = true;
    setTimeout(flush, 100);
  }
}

/** Subscribes the store to the engine's events; returns the unsubscriber. */
export function connectJobEvents(): () => void {
  const offs = [
    api().on('job:progress', (payload) => enqueue({ name: 'job:progress', payload })),
    api().on('job:finished', (payload) => enqueue({ name: 'job:finished', payload })),
    api().on('qa:token', (payload) => enqueue({ name: 'qa:token', payload })),
    api().on('endpoint:notice', (payload) => enqueue({ name: 'endpoint:notice', payload })),
  ];
  return () => offs.forEach((off) => off());
}

/** The newest job of `kind` for `kb`, if this window knows one. */
export function latestJob(jobs: Record<string, JobView>, kind: JobKind, kb: string | null): JobView | null {
  let found: JobView | null = null;
  for (const job of Object.values(jobs)) if (job.kind === kind && (kb === null || job.kb === kb)) found = job;
  return found;
}
