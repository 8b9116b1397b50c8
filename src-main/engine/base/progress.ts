/** Progress of one stage of a long operation; the api adds the job's identity (`JobProgress`). */
export interface StageProgress {
  stage: string;
  done: number;
  total: number;
  /** Units per second over the stage so far. */
  rate: number;
  etaSeconds: number | null;
  message: string;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  cacheHits: number;
}
