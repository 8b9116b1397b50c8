import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';
import { IgnoreRules } from './IgnoreRules.js';

/** How a folder is being followed: file-system events, or periodic scans once the system's watch limit is reached. */
export type WatchMode = 'events' | 'polling';

export interface FolderWatcherOptions {
  /** The user's ignore patterns (see {@link IgnoreRules}). Default: none. */
  ignore?: readonly string[];
  /** Quiet time after the last event before the changed paths are handed on, in ms. Default: 1000. */
  debounceMs?: number;
  /**
   * A file counts as written once its size has stayed the same this long, in ms (chokidar's
   * `awaitWriteFinish`), so a document being saved or copied is read once, whole. Default: 2000.
   */
  writeFinishMs?: number;
  /** Interval of the periodic scan that replaces events past the system's watch limit, in ms. Default: 60,000. */
  pollIntervalMs?: number;
  /** Changed paths (files or folders, created, changed or deleted), once per quiet period. */
  onChanges: (paths: string[]) => Promise<void>;
  /** Periodic scan of the whole folder (polling mode). */
  onRescan: () => Promise<void>;
  /** The mode changed; `reason` says why (e.g. the watch limit). */
  onModeChange?: (mode: WatchMode, reason: string) => void;
  /** An error that did not stop the watch (a folder that cannot be read, a failed sync). */
  onError?: (error: unknown) => void;
  /** @internal Tests pass a watcher that fails as the system's does. Default: chokidar's `watch`. */
  watchFn?: (path: string, options: ChokidarOptions) => FSWatcher;
}

/** Errors meaning the system ran out of watches or descriptors: events cannot follow this folder. */
const LIMIT_CODES = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

/**
 * Follows one folder: chokidar's events, filtered by the same {@link IgnoreRules} as "add
 * folder", are gathered into a set of paths and handed on once the folder has been quiet for
 * `debounceMs`; one hand-over runs at a time, and what arrives meanwhile waits for the next.
 * When the system's watch limit is reached (inotify's ENOSPC on Linux, descriptors elsewhere),
 * it stops the watcher and scans the folder every `pollIntervalMs` instead, and says so.
 */
export class FolderWatcher {
  readonly root: string;
  readonly #options: FolderWatcherOptions;
  readonly #rules: IgnoreRules;
  #watcher: FSWatcher | null = null;
  #poller: NodeJS.Timeout | null = null;
  #debounce: NodeJS.Timeout | null = null;
  /** When the pending paths are handed on (performance.now()), unless more events come. */
  #due = 0;
  #pending = new Set<string>();
  #running: Promise<void> = Promise.resolve();
  #busy = false;
  #mode: WatchMode = 'events';
  #disposed = false;

  private constructor(root: string, options: FolderWatcherOptions) {
    this.root = root;
    this.#options = options;
    this.#rules = new IgnoreRules(root, { patterns: options.ignore ?? [] });
  }

  /** Starts watching; resolves once the initial tree is being watched (or polling took over). */
  static async create(root: string, options: FolderWatcherOptions): Promise<FolderWatcher> {
    const watcher = new FolderWatcher(root, options);
    await watcher.#start();
    return watcher;
  }

  get mode(): WatchMode {
    return this.#mode;
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    if (this.#debounce) clearTimeout(this.#debounce);
    if (this.#poller) clearInterval(this.#poller);
    this.#debounce = null;
    this.#pending.clear();
    await this.#watcher?.close();
    this.#watcher = null;
    await this.#running;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #start(): Promise<void> {
    const { writeFinishMs = 2000, watchFn = watch } = this.#options;
    const watcher = watchFn(this.root, {
      ignoreInitial: true,
      followSymlinks: false,
      // chokidar asks for folders too: an ignored folder is never entered, so it costs no watches.
      ignored: (path: string) => this.#rules.reason(path) !== undefined,
      awaitWriteFinish:
        writeFinishMs > 0 ? { stabilityThreshold: writeFinishMs, pollInterval: Math.min(100, writeFinishMs) } : false,
    });
    this.#watcher = watcher;
    return new Promise<void>((resolve) => {
      watcher.on('all', (event, path) => this.#changed(path, event === 'unlink' || event === 'unlinkDir'));
      watcher.on('error', (error) => {
        if (LIMIT_CODES.has((error as NodeJS.ErrnoException).code ?? '')) {
          void this.#fallBackToPolling(error as NodeJS.ErrnoException).then(resolve);
        } else {
          this.#options.onError?.(error);
        }
      });
      watcher.on('ready', () => resolve());
    });
  }

  async #fallBackToPolling(error: NodeJS.ErrnoException): Promise<void> {
    if (this.#mode === 'polling' || this.#disposed) return;
    this.#mode = 'polling';
    const watcher = this.#watcher;
    this.#watcher = null;
    await watcher?.close();
    const { pollIntervalMs = 60_000 } = this.#options;
    this.#options.onModeChange?.(
      'polling',
      `the system's limit on watched files was reached (${error.code}); scanning the folder every ${Math.round(pollIntervalMs / 1000)} s instead` +
        (error.code === 'ENOSPC' ? ' (raise fs.inotify.max_user_watches to get events again)' : ''),
    );
    this.#poller = setInterval(() => this.#handOver(() => this.#options.onRescan()), pollIntervalMs);
    this.#poller.unref();
    // What changed between the last event and the switch is found by a scan now.
    this.#pending.clear();
    this.#handOver(() => this.#options.onRescan());
  }

  #changed(path: string, removal: boolean): void {
    if (this.#disposed || this.#mode !== 'events') return;
    this.#pending.add(path);
    const { debounceMs = 1000, writeFinishMs = 2000 } = this.#options;
    // A move is an unlink now and an add once the new path is stable (writeFinishMs later): the
    // two must reach one hand-over, or the document would be removed and added again.
    const now = performance.now();
    this.#due = Math.max(this.#due, now + debounceMs + (removal ? 2 * writeFinishMs : 0));
    if (this.#debounce) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(
      () => {
        this.#debounce = null;
        this.#flush();
      },
      Math.max(debounceMs, this.#due - now),
    );
  }

  #flush(): void {
    if (this.#busy || this.#pending.size === 0) return;
    const paths = [...this.#pending];
    this.#pending.clear();
    this.#handOver(() => this.#options.onChanges(paths));
  }

  /** Runs one hand-over after the one before; then hands over what gathered meanwhile. */
  #handOver(work: () => Promise<void>): void {
    if (this.#busy) return; // a poll tick during a sync: the next tick catches up
    this.#busy = true;
    this.#running = work()
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#busy = false;
        if (!this.#disposed && !this.#debounce) this.#flush();
      });
  }
}
