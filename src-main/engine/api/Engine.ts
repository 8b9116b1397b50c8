import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventName, Events, Method, Reply } from './contract.js';
import { dispatch, type Handlers } from './dispatch.js';
import { JobManager } from './JobManager.js';
import type { AppPaths } from './paths.js';
import { SettingsStore } from './SettingsStore.js';
import { systemHandlers } from './handlers/system.js';

export interface EngineOptions {
  paths: AppPaths;
}

export type EngineEventListener = <E extends EventName>(name: E, payload: Events[E]) => void;

/**
 * The engine behind every front door. It owns the data directory, the open knowledge bases,
 * the loaded models and the running jobs; front doors only call {@link Engine.call} and
 * forward {@link Engine.onEvent}.
 */
export class Engine {
  readonly paths: AppPaths;
  readonly settings: SettingsStore;
  readonly jobs: JobManager;
  readonly #listeners = new Set<EngineEventListener>();
  readonly #handlers: Handlers;

  private constructor(options: EngineOptions) {
    this.paths = options.paths;
    mkdirSync(this.paths.dataDir, { recursive: true });
    this.settings = new SettingsStore(join(this.paths.dataDir, 'settings.json'));
    this.jobs = new JobManager((name, payload) => this.#emit(name, payload));
    this.#handlers = {
      ...systemHandlers(this),
    } as Handlers;
  }

  static async create(options: EngineOptions): Promise<Engine> {
    return new Engine(options);
  }

  /** Validated, error-safe entry for a `(method, payload)` pair from any front door. */
  call(method: unknown, payload: unknown): Promise<Reply<unknown>> {
    return dispatch(this.#handlers, method, payload);
  }

  onEvent(listener: EngineEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async dispose(): Promise<void> {
    await this.jobs.dispose();
  }

  #emit<E extends EventName>(name: E, payload: Events[E]): void {
    for (const listener of this.#listeners) {
      try {
        listener(name, payload);
      } catch (error) {
        console.error('[polyhop] event listener failed:', error);
      }
    }
  }
}

export type { Method };
