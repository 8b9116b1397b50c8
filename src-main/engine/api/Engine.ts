import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventName, Events, PolyhopEvent, Reply } from './contract.js';
import { dispatch, type Handlers } from './dispatch.js';
import { JobManager } from './JobManager.js';
import type { AppPaths } from './paths.js';
import { SettingsStore } from './SettingsStore.js';
import { systemHandlers } from './handlers/system.js';
import { kbHandlers } from './handlers/kb.js';
import { modelHandlers } from './handlers/models.js';
import { endpointHandlers } from './handlers/endpoints.js';
import { docHandlers } from './handlers/docs.js';
import { docSourceHandlers } from './handlers/docSource.js';
import { indexingHandlers } from './handlers/indexing.js';
import { graphHandlers } from './handlers/graph.js';
import { qaHandlers } from './handlers/qa.js';
import { threadHandlers } from './handlers/threads.js';
import { rdfHandlers } from './handlers/rdf.js';
import { evalHandlers } from './handlers/eval.js';
import { backupHandlers } from './handlers/backup.js';
import { storeHandlers } from './handlers/store.js';
import { watchHandlers } from './handlers/watch.js';
import { WatchService, type WatchTimings } from './WatchService.js';
import { KbSessions } from './KbSessions.js';
import { StoreService } from './StoreService.js';
import { startUpgradeIfDue } from './upgradeKb.js';
import { ModelRuntime, type InjectedModels } from './ModelRuntime.js';
import { ModelManager } from '../models/ModelManager.js';
import { PromptLibrary } from '../models/PromptLibrary.js';

export interface EngineOptions {
  paths: AppPaths;
  /**
   * Models to use instead of the user's selection. For hosts that bring their own (the test
   * suite's scripted LLM, embedding programs); the app's front doors never pass any.
   */
  models?: InjectedModels;
  /** @internal Watcher timings (tests shorten the debounce). */
  watchTimings?: WatchTimings;
  /** @internal Least interval between a job's progress events (tests that act on each one set 0). Default: 100 ms. */
  progressIntervalMs?: number;
}

export type EngineEventListener = (event: PolyhopEvent) => void;

/**
 * The engine behind every front door. It owns the data directory, the open knowledge bases,
 * the loaded models and the running jobs; front doors only call {@link Engine.call} and
 * forward {@link Engine.onEvent}.
 */
export class Engine {
  readonly paths: AppPaths;
  readonly settings: SettingsStore;
  readonly jobs: JobManager;
  readonly kbs: KbSessions;
  /** Each KB's external SPARQL store (publish, sync, queries). */
  readonly stores: StoreService;
  /** Watched folders; their watchers run once a front door that stays up calls `watches.start()`. */
  readonly watches: WatchService;
  readonly models: ModelRuntime;
  readonly modelFiles: ModelManager;
  readonly prompts: PromptLibrary;
  readonly #listeners = new Set<EngineEventListener>();
  readonly #handlers: Handlers;

  private constructor(options: EngineOptions) {
    this.paths = options.paths;
    mkdirSync(this.paths.dataDir, { recursive: true });
    this.settings = new SettingsStore(join(this.paths.dataDir, 'settings.json'));
    this.jobs = new JobManager(
      (name, payload) => {
        this.#emit(name, payload);
        if (name === 'job:finished') this.#afterJob(payload as Events['job:finished']);
      },
      { progressIntervalMs: options.progressIntervalMs },
    );
    this.kbs = new KbSessions(this.paths.dataDir, (session) => startUpgradeIfDue(this, session));
    this.stores = new StoreService(this);
    this.watches = new WatchService(this, (name, payload) => this.#emit(name, payload), options.watchTimings);
    this.models = new ModelRuntime(this.settings, options.models, (notice) => this.#emit('endpoint:notice', notice));
    this.modelFiles = new ModelManager({
      modelsDir: this.paths.modelsDir,
      catalogPath: join(this.paths.appRoot, 'models', 'catalog.json'),
    });
    this.prompts = new PromptLibrary(this.paths.promptsDir);
    this.#handlers = {
      ...systemHandlers(this),
      ...kbHandlers(this),
      ...modelHandlers(this),
      ...endpointHandlers(this),
      ...docHandlers(this),
      ...docSourceHandlers(this),
      ...indexingHandlers(this),
      ...graphHandlers(this),
      ...qaHandlers(this),
      ...threadHandlers(this),
      ...rdfHandlers(this),
      ...evalHandlers(this),
      ...backupHandlers(this),
      ...storeHandlers(this),
      ...watchHandlers(this),
    };
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
    await this.watches.dispose();
    await this.jobs.dispose();
    await this.kbs.dispose();
    await this.models.dispose();
  }

  /** Indexing or re-embedding may leave a large vector family due for recentring: the upgrade job does it. */
  #afterJob({ jobId, kind }: Events['job:finished']): void {
    const kb = kind === 'index' || kind === 'reembed' ? this.jobs.get(jobId)?.kb : null;
    if (!kb || !this.kbs.registry.list().some((k) => k.name === kb && !k.problem)) return;
    startUpgradeIfDue(this, this.kbs.get(kb));
  }

  #emit<E extends EventName>(name: E, payload: Events[E]): void {
    for (const listener of this.#listeners) {
      try {
        listener({ name, payload } as PolyhopEvent);
      } catch (error) {
        console.error('[polyhop] event listener failed:', error);
      }
    }
  }
}
