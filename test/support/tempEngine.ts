import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine, type EngineOptions } from '../../src-main/engine/api/Engine.js';
import type { InjectedModels } from '../../src-main/engine/api/ModelRuntime.js';
import type { JobState } from '../../src-main/engine/api/contract.js';
import { appPaths } from '../../src-main/engine/api/paths.js';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

/**
 * A real engine over a fresh temporary data directory; `models` injects test doubles (the
 * engine's test hook). `dispose` removes the directory.
 */
export async function tempEngine(
  models?: InjectedModels,
  options: Omit<EngineOptions, 'paths' | 'models'> = {},
): Promise<{ engine: Engine; dataDir: string; dispose: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'polyhop-test-'));
  const engine = await engineAt(dataDir, models, options);
  return {
    engine,
    dataDir,
    dispose: async () => {
      await engine.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A real engine over the data directory `dataDir` (kept), with this checkout's prompts and catalog. */
export function engineAt(
  dataDir: string,
  models?: InjectedModels,
  options: Omit<EngineOptions, 'paths' | 'models'> = {},
): Promise<Engine> {
  return Engine.create({
    paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
    ...(models ? { models } : {}),
    ...options,
  });
}

/** Calls the Api and unwraps the reply, failing the test with the error on `ok: false`. */
export async function call<T = unknown>(engine: Engine, method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

/** Starts a job through the Api and waits for it to end. */
export async function runJobToEnd(
  engine: Engine,
  method: string,
  payload: unknown,
): Promise<JobState & { result: unknown }> {
  let result: unknown;
  const { jobId } = await call<{ jobId: string }>(engine, method, payload);
  const off = engine.onEvent((e) => {
    if (e.name === 'job:finished' && e.payload.jobId === jobId) result = e.payload.result;
  });
  const state = (await engine.jobs.settled(jobId)) as JobState;
  off();
  return { ...state, result };
}
