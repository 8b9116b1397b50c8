import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src-main/engine/api/Engine.js';
import { appPaths } from '../../src-main/engine/api/paths.js';
import { ensureBuilt } from '../../src-main/rendererBuild.js';
import { startBrowserServer } from '../../src-main/serve.js';
import type { InjectedModels } from '../../src-main/engine/api/ModelRuntime.js';
import { e2eModels, type E2eModels } from './e2eCorpus.js';
import { repoRoot } from './tempEngine.js';

/**
 * The app as the e2e tests see it: a real engine over a temporary data directory, the real
 * renderer built by electron-vite, served in browser mode on 127.0.0.1.
 */

export interface E2eServerOptions {
  /**
   * Inject the scripted corpus LLM and embedder through the engine's test hook
   * (`Engine.create({ models })`). Default false: no models, like a fresh install.
   */
  scripted?: boolean;
  /** Other models to inject through the same hook (a bench's synthetic-corpus model; an object the test fills later); wins over `scripted`. */
  models?: InjectedModels;
}

export interface E2eServer {
  /** Signs the browser in (session cookie) and opens the app. */
  authUrl: string;
  /** The app's origin, without the token. */
  url: string;
  engine: Engine;
  dataDir: string;
  /** The injected models, when `scripted`. */
  models: E2eModels | null;
  close(): Promise<void>;
}

const LOCK = join(tmpdir(), 'polyhop-e2e-build.lock');
const LOCK_STALE_MS = 10 * 60_000;

/** Whether the lock's owner is gone (killed mid-build) or the lock is older than any build. */
function lockIsStale(): boolean {
  try {
    if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) return true;
    process.kill(Number(readFileSync(join(LOCK, 'pid'), 'utf8')), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** One build at a time across the e2e files of a run (vitest runs them in parallel processes). */
async function withBuildLock<T>(work: () => T): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockIsStale()) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** True when index.html and every asset it names are there (a concurrent build may be half-way). */
function complete(dir: string): boolean {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return false;
  const assets = [...readFileSync(index, 'utf8').matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => m[1]!);
  return assets.length > 0 && assets.every((a) => existsSync(join(dir, a)));
}

/**
 * Builds the renderer when stale (later files of a run find it fresh) and copies it to a private
 * folder, so a rebuild started elsewhere in the shared tree cannot pull files from under a
 * running test. The caller removes the copy.
 */
export function builtRendererCopy(): Promise<string> {
  return withBuildLock(() => {
    const out = join(repoRoot, 'out', 'renderer');
    for (let attempt = 0; ; attempt++) {
      ensureBuilt(repoRoot);
      const copy = mkdtempSync(join(tmpdir(), 'polyhop-renderer-'));
      cpSync(out, copy, { recursive: true });
      if (complete(copy)) return copy;
      rmSync(copy, { recursive: true, force: true });
      if (attempt === 5) throw new Error(`e2eServer: ${out} stays incomplete after building`);
    }
  });
}

/** Builds the renderer when stale, for tests that serve it through the app's own commands. */
export function ensureRendererBuilt(): Promise<void> {
  return withBuildLock(() => ensureBuilt(repoRoot));
}

export async function startE2eServer(options: E2eServerOptions = {}): Promise<E2eServer> {
  const rendererDir = await builtRendererCopy();
  const dataDir = mkdtempSync(join(tmpdir(), 'polyhop-e2e-'));
  mkdirSync(join(dataDir, 'models')); // an empty models folder, as after install
  const models = options.scripted && !options.models ? e2eModels() : null;
  const injected = options.models ?? (models ? { llm: models.llm, embedder: models.embedder } : null);
  const engine = await Engine.create({
    paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
    ...(injected ? { models: injected } : {}),
  });
  const server = await startBrowserServer({ engine, rendererDir });
  return {
    authUrl: server.authUrl,
    url: server.url,
    engine,
    dataDir,
    models,
    close: async () => {
      await server.close();
      await engine.dispose();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(rendererDir, { recursive: true, force: true });
    },
  };
}
