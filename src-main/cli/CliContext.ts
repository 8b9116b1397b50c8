import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Method, Request, Responses } from '../engine/api/contract.js';
import type { Engine } from '../engine/api/Engine.js';
import { appPaths, defaultDataDir } from '../engine/api/paths.js';
import { finishStoreSync } from './finishStoreSync.js';
import { runJob, type JobResult, type RunJobOptions } from './runJob.js';

/** A command that ran and failed: `runCli` prints `polyhop: <message>` and exits 1. */
export class CliError extends Error {}

/** What every command module gets: Api calls on one lazily created engine, and the output rules. */
export interface CliContext {
  /** One Api call; an error reply throws a `CliError` reading `CODE: message`. */
  call: <M extends Method>(method: M, request: Request<M>) => Promise<Responses[M]>;
  /** Starts a job and waits for it, drawing its progress on stderr (none under `--json`). */
  job: <M extends Method>(
    method: M,
    request: Request<M>,
    options?: Pick<RunJobOptions, 'pauseOnInterrupt' | 'onToken'>,
  ) => Promise<JobResult>;
  /** Prints `value` as JSON under `--json`, else runs `human`. */
  out: (value: unknown, human: () => void) => void;
  /** Throws a `CliError`. */
  fail: (message: string) => never;
  /** The engine, created over `--data-dir`/`--models-dir` on first use (or the injected one). */
  getEngine: () => Promise<Engine>;
  /** Whether `--json` was given. */
  json: () => boolean;
  /** Waits for the store sync a change to `kb` started; see `finishStoreSync`. */
  storeSynced: (kb: string) => Promise<void>;
}

/**
 * The context over `program`'s global options. `dispose` disposes the engine it created, never
 * an injected one.
 */
export function createCliContext(
  program: Command,
  appRoot: string,
  injected: Engine | undefined,
): { ctx: CliContext; dispose: () => Promise<void> } {
  let engine: Engine | undefined = injected;
  const getEngine = async (): Promise<Engine> => {
    if (!engine) {
      const opts = program.opts<{ dataDir?: string; modelsDir?: string }>();
      // Loaded on first use, so `--help` does not pay for the engine's native modules.
      const { Engine } = await import('../engine/api/Engine.js');
      engine = await Engine.create({
        paths: appPaths(appRoot, opts.dataDir ? resolve(opts.dataDir) : defaultDataDir(), opts.modelsDir),
      });
    }
    return engine;
  };
  const json = (): boolean => Boolean(program.opts<{ json?: boolean }>().json);
  const call = async <M extends Method>(method: M, request: Request<M>): Promise<Responses[M]> => {
    const reply = await (await getEngine()).call(method, request);
    if (!reply.ok) throw new CliError(`${reply.error.code}: ${reply.error.message}`);
    return reply.value as Responses[M];
  };
  const job: CliContext['job'] = async (method, request, options = {}) => {
    const { jobId } = (await call(method, request)) as { jobId: string };
    return runJob(await getEngine(), jobId, { ...options, quiet: json() });
  };
  const out = (value: unknown, human: () => void): void => {
    if (json()) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else human();
  };
  const fail = (message: string): never => {
    throw new CliError(message);
  };
  const storeSynced = (kbName: string): Promise<void> =>
    finishStoreSync({ call, getEngine, quiet: json(), fail }, kbName);
  return {
    ctx: { call, job, out, fail, getEngine, json, storeSynced },
    dispose: async () => {
      if (engine !== injected) await engine?.dispose();
    },
  };
}
