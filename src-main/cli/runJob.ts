import cliProgress from 'cli-progress';
import type { ErrorData, JobStatus } from '../engine/api/contract.js';
import type { Engine } from '../engine/api/Engine.js';

export interface JobResult {
  status: Exclude<JobStatus, 'running'>;
  result: unknown;
  error: ErrorData | null;
}

export interface RunJobOptions {
  /** Ctrl-C pauses (resumable) instead of cancelling. */
  pauseOnInterrupt?: boolean;
  /** Streamed answer text; `reset`: what streamed before is void. The progress bars stop at the first token, so they do not draw over the text. */
  onToken?: ((text: string, reset: boolean) => void) | undefined;
  /** No progress bars (JSON output). */
  quiet?: boolean;
}

/** Waits for a job, drawing one progress bar per stage on stderr; Ctrl-C pauses or cancels it. */
export function runJob(engine: Engine, jobId: string, options: RunJobOptions = {}): Promise<JobResult> {
  const bars = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      format: ' {stage} |{bar}| {value}/{total} {rateText} ETA {etaText} {extra}',
      hideCursor: true,
      clearOnComplete: false,
      noTTYOutput: Boolean(process.env.CI),
      notTTYSchedule: 5000,
    },
    cliProgress.Presets.shades_classic,
  );
  const stageBars = new Map<string, cliProgress.SingleBar>();
  let interrupted = false;
  let streaming = false;

  return new Promise<JobResult>((resolve) => {
    const onSigint = (): void => {
      if (interrupted) process.exit(130);
      interrupted = true;
      process.stderr.write(
        options.pauseOnInterrupt ? '\nPausing… (run the same command to resume)\n' : '\nCancelling…\n',
      );
      void engine.call(options.pauseOnInterrupt ? 'jobs:pause' : 'jobs:cancel', { jobId });
    };
    process.on('SIGINT', onSigint);
    const unsubscribe = engine.onEvent((event) => {
      // A server that makes the job wait (busy, loading) says so, above the bars.
      if (event.name === 'endpoint:notice') {
        const line = `Inference server: ${event.payload.message}\n`;
        if (options.quiet) return;
        if (process.stderr.isTTY) bars.log(line);
        else process.stderr.write(line);
        return;
      }
      if (event.payload.jobId !== jobId) return;
      if (event.name === 'qa:token' && options.onToken) {
        if (!streaming) bars.stop();
        streaming = true;
        options.onToken(event.payload.text, event.payload.reset === true);
      } else if (event.name === 'job:progress' && !options.quiet && !streaming) {
        const payload = event.payload;
        const values = {
          stage: payload.stage.padEnd(12),
          rateText: payload.rate > 0 ? `${payload.rate.toFixed(1)}/s` : '',
          etaText: payload.etaSeconds === null ? '-' : `${Math.round(payload.etaSeconds)}s`,
          extra: [
            payload.llmCalls ? `${payload.llmCalls} calls` : '',
            payload.promptTokens ? `${payload.promptTokens}+${payload.completionTokens} tok` : '',
            payload.cacheHits ? `${payload.cacheHits} cached` : '',
            payload.message,
          ]
            .filter(Boolean)
            .join(' '),
        };
        let bar = stageBars.get(payload.stage);
        if (!bar) {
          bar = bars.create(Math.max(payload.total, 1), payload.done, values);
          stageBars.set(payload.stage, bar);
        }
        bar.setTotal(Math.max(payload.total, 1));
        bar.update(payload.done, values);
      } else if (event.name === 'job:finished') {
        const payload = event.payload;
        bars.stop();
        unsubscribe();
        process.off('SIGINT', onSigint);
        resolve({ status: payload.status, result: payload.result, error: payload.error });
      }
    });
  });
}
