/** Events the engine streams to every front door: job progress and ends, streamed answer text. */
import type { StageProgress } from '../../base/progress.js';
import type { WatchSync } from '../../kb/views.js';
import type { ErrorData } from './responses.js';

export type JobKind =
  'index' | 'export' | 'import' | 'ask' | 'download' | 'eval' | 'backup' | 'restore' | 'reembed' | 'store' | 'upgrade';
export type JobStatus = 'running' | 'paused' | 'done' | 'cancelled' | 'failed';

export interface JobProgress extends StageProgress {
  jobId: string;
  kind: JobKind;
  kb: string | null;
}

export interface JobState {
  jobId: string;
  kind: JobKind;
  kb: string | null;
  status: JobStatus;
  startedAt: string;
  progress: JobProgress | null;
  error: ErrorData | null;
}

export interface Events {
  'job:progress': JobProgress;
  'job:finished': {
    jobId: string;
    kind: JobKind;
    status: Exclude<JobStatus, 'running'>;
    result: unknown;
    error: ErrorData | null;
  };
  /**
   * Streamed answer text of an `ask` job, provisional until `job:finished` brings the Answer.
   * `reset`: drop what streamed so far (a retried reply), `text` starts it anew.
   */
  'qa:token': { jobId: string; text: string; reset?: boolean };
  /** A watched folder's changes were recorded; `jobId`: the index job that takes them (null when nothing new is pending). */
  'watch:synced': WatchSync & { kb: string; path: string; jobId: string | null };
  /** An inference server made calls wait (busy, still loading): what is waited for, and how long. No job's own event: every job using the role waits. */
  'endpoint:notice': { endpoint: string; role: 'generation' | 'embedding'; message: string };
}
export type EventName = keyof Events;
/** One event as it travels (IPC, WebSocket, in-process): narrow on `name`. */
export type PolyhopEvent = { [E in EventName]: { name: E; payload: Events[E] } }[EventName];
