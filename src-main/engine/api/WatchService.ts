import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PolyhopError, toErrorData } from '../base/errors.js';
import { badInput } from '../ingest/badInput.js';
import { FolderWatcher, type FolderWatcherOptions } from '../ingest/watch/FolderWatcher.js';
import { WatchListFile, type WatchedFolder } from '../ingest/watch/WatchListFile.js';
import type { AddDocumentsResult, WatchedFolderView } from './contract.js';
import type { EventSink } from './JobManager.js';
import { addDocuments, syncChangedPaths } from './documentChanges.js';
import type { Engine } from './Engine.js';
import { runIndexing } from './handlers/indexing.js';

/** Timings of the watchers (tests shorten them). */
export type WatchTimings = Pick<FolderWatcherOptions, 'debounceMs' | 'pollIntervalMs' | 'subscribeFn'>;

interface ActiveFolder {
  folder: WatchedFolder;
  watcher: FolderWatcher | null;
  view: Omit<WatchedFolderView, 'kb' | 'path' | 'ignore'>;
}

/**
 * The watched folders (persisted in WatchListFile) and, while a front door that stays up runs
 * them (the window, browser mode, `polyhop watch`), their watchers. Each folder's changes go
 * through the same code as the user's own "add": a catch-up scan on start is `addDocuments` on
 * the folder; events become {@link syncChangedPaths}. One sync runs at a time per KB; new or
 * changed documents start an index job, or another one right after the running one.
 */
export class WatchService {
  readonly #engine: Engine;
  readonly #emit: EventSink;
  readonly #file: WatchListFile;
  readonly #timings: WatchTimings;
  readonly #active = new Map<string, ActiveFolder>();
  /** KB ids whose folders are followed (null: none started). */
  #scope: 'all' | Set<string> | null = null;
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #indexAgain = new Set<string>();

  constructor(engine: Engine, emit: EventSink, timings: WatchTimings = {}) {
    this.#engine = engine;
    this.#emit = emit;
    this.#timings = timings;
    this.#file = new WatchListFile(join(engine.paths.dataDir, 'watched-folders.json'));
    engine.onEvent((event) => {
      if (event.name !== 'job:finished' || event.payload.kind !== 'index') return;
      const kb = engine.jobs.get(event.payload.jobId)?.kb;
      const id = kb ? this.#kbIdOrNull(kb) : null;
      if (id && this.#indexAgain.delete(id)) this.#index(kb!);
    });
  }

  /** The ignore patterns of a watched folder (none for a folder that is not watched). */
  ignorePatterns(kb: string, path: string): string[] {
    const id = this.#kbIdOrNull(kb);
    return this.#file.list().find((f) => f.kbId === id && f.path === resolve(path))?.ignore ?? [];
  }

  list(kb?: string): WatchedFolderView[] {
    const id = kb === undefined ? undefined : this.#kbId(kb);
    const names = new Map(this.#engine.kbs.registry.list().map((e) => [e.id, e.name]));
    return this.#file
      .list()
      .filter((f) => (id === undefined || f.kbId === id) && names.has(f.kbId))
      .map((f) => this.#view(f, names.get(f.kbId)!));
  }

  /** Keeps a folder in sync with a KB from now on; a running watch starts on it at once. */
  async add(kb: string, path: string, ignore: readonly string[] = []): Promise<WatchedFolderView> {
    const root = resolve(path);
    const info = await stat(root).catch((error: unknown) => {
      throw badInput(root, toErrorData(error).message, { cause: error });
    });
    if (!info.isDirectory()) throw badInput(root, 'is not a folder (only folders can be watched)');
    const kbId = this.#kbId(kb);
    const folder = { kbId, path: root, ignore: [...ignore] };
    this.#file.set(folder);
    if (this.#follows(kbId)) await this.#restart(folder);
    return this.#view(folder, this.#engine.kbs.get(kb).name);
  }

  /** Stops keeping a folder in sync (its documents stay in the KB). */
  async remove(kb: string, path: string): Promise<boolean> {
    const kbId = this.#kbId(kb);
    const root = resolve(path);
    await this.#stop(kbId, root);
    return this.#file.remove(kbId, root);
  }

  /** Before a KB is deleted: its folders are no longer watched. */
  async forget(kb: string): Promise<void> {
    const kbId = this.#kbId(kb);
    for (const f of this.#file.list()) if (f.kbId === kbId) await this.#stop(kbId, f.path);
    this.#file.remove(kbId);
  }

  /**
   * Follows the watched folders of one KB, or of all: each is caught up by a scan (what changed
   * while nothing watched), then watched. Resolves once every watcher is up; never rejects for a
   * folder that cannot be watched (its view says why).
   */
  async start(kb?: string): Promise<void> {
    if (kb === undefined) this.#scope = 'all';
    else {
      const id = this.#kbId(kb);
      if (this.#scope !== 'all') this.#scope = new Set([...(this.#scope ?? []), id]);
    }
    for (const folder of this.#file.list()) {
      if (!this.#follows(folder.kbId) || this.#active.has(key(folder))) continue;
      // One folder that cannot be followed (gone, unreadable) leaves the others followed; its view says why.
      await this.#restart(folder).catch((error: unknown) =>
        console.error(`[polyhop] cannot watch ${folder.path}:`, error),
      );
    }
  }

  /** Stops every watcher and waits for syncs in flight (their transactions end whole). */
  async dispose(): Promise<void> {
    this.#scope = null;
    await Promise.all([...this.#active.values()].map((a) => a.watcher?.dispose()));
    this.#active.clear();
    await Promise.all([...this.#queues.values()]);
  }

  #follows(kbId: string): boolean {
    return this.#scope === 'all' || (this.#scope?.has(kbId) ?? false);
  }

  async #restart(folder: WatchedFolder): Promise<void> {
    await this.#stop(folder.kbId, folder.path);
    const active: ActiveFolder = { folder, watcher: null, view: { mode: 'events', message: null, lastSync: null } };
    this.#active.set(key(folder), active);
    const sync = (run: (kb: string) => Promise<AddDocumentsResult>, resume = false) => this.#sync(active, run, resume);
    void sync((kb) => addDocuments(this.#engine, kb, [folder.path]), true);
    try {
      active.watcher = await FolderWatcher.create(folder.path, {
        ...this.#timings,
        ignore: folder.ignore,
        onChanges: (paths) => sync((kb) => syncChangedPaths(this.#engine, kb, folder.path, paths, folder.ignore)),
        onRescan: () => sync((kb) => addDocuments(this.#engine, kb, [folder.path])),
        onModeChange: (mode, reason) => {
          active.view.mode = mode;
          active.view.message = reason;
          console.warn(`[polyhop] ${folder.path}: ${reason}`);
        },
        onError: (error) => {
          active.view.message = toErrorData(error).message;
        },
      });
      if (this.#active.get(key(folder)) !== active) await active.watcher.dispose();
    } catch (error) {
      active.view.mode = 'stopped';
      active.view.message = toErrorData(error).message;
    }
  }

  async #stop(kbId: string, path: string): Promise<void> {
    const active = this.#active.get(key({ kbId, path }));
    this.#active.delete(key({ kbId, path }));
    await active?.watcher?.dispose();
  }

  /**
   * One sync at a time per KB; its outcome is shown on the folder and sent as `watch:synced`.
   * `resume` (the catch-up on start): documents a killed run recorded but did not finish indexing
   * are indexed too, though the scan finds their files unchanged.
   */
  #sync(active: ActiveFolder, run: (kb: string) => Promise<AddDocumentsResult>, resume = false): Promise<void> {
    const { kbId, path } = active.folder;
    const previous = this.#queues.get(kbId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.#active.get(key(active.folder)) !== active) return;
      const name = this.#engine.kbs.registry.list().find((e) => e.id === kbId)?.name;
      if (!name) return;
      try {
        const result = await run(name);
        const jobId = result.added.length > 0 || (resume && this.#unfinished(name)) ? this.#index(name) : null;
        const lastSync = {
          at: new Date().toISOString(),
          added: result.added.length,
          removed: result.removed,
          renamed: result.renamed,
          unchanged: result.unchanged,
          errors: result.errors.length,
        };
        active.view.lastSync = lastSync;
        if (active.view.mode === 'events') active.view.message = null;
        this.#emit('watch:synced', { kb: name, path, ...lastSync, jobId });
      } catch (error) {
        active.view.message = `sync failed: ${toErrorData(error).message}`;
      }
    });
    this.#queues.set(kbId, next);
    return next;
  }

  /** Whether the KB has documents waiting to be indexed or left half-indexed (not those that failed). */
  #unfinished(kb: string): boolean {
    for (const doc of this.#engine.kbs.get(kb).kb.documents.iterateDocuments())
      if (doc.status === 'pending' || doc.status === 'indexing') return true;
    return false;
  }

  /** Starts indexing the KB, or marks it for another run when one is going. */
  #index(kb: string): string {
    const session = this.#engine.kbs.get(kb);
    const running = this.#engine.jobs
      .list()
      .find((j) => j.kind === 'index' && j.kb === session.name && j.status === 'running');
    if (running) {
      this.#indexAgain.add(this.#kbId(kb));
      return running.jobId;
    }
    return this.#engine.jobs.start('index', session.name, ({ signal, progress }) =>
      runIndexing(this.#engine, session, { signal, progress }),
    );
  }

  #view(folder: WatchedFolder, kb: string): WatchedFolderView {
    const active = this.#active.get(key(folder));
    return {
      kb,
      path: folder.path,
      ignore: [...folder.ignore],
      ...(active ? structuredClone(active.view) : { mode: 'stopped', message: null, lastSync: null }),
    };
  }

  #kbId(kb: string): string {
    return this.#engine.kbs.registry.get(kb).id;
  }

  #kbIdOrNull(kb: string): string | null {
    try {
      return this.#kbId(kb);
    } catch (error) {
      if (error instanceof PolyhopError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }
}

function key(folder: Pick<WatchedFolder, 'kbId' | 'path'>): string {
  return `${folder.kbId}\u0000${folder.path}`;
}
