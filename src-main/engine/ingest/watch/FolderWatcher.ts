import { lstat } from 'node:fs/promises';
import parcelWatcher, { type AsyncSubscription, type Event } from '@parcel/watcher';
import { IgnoreRules } from './IgnoreRules.js';
import { inotifyRefusal, inotifyWatchedInodes } from './inotifyLimits.js';

/** How a folder is being followed: file-system events, or periodic scans once the system's watch limit is reached. */
export type WatchMode = 'events' | 'polling';

export interface FolderWatcherOptions {
  /** The user's ignore patterns (see {@link IgnoreRules}). Default: none. */
  ignore?: readonly string[];
  /**
   * Quiet time after the last event before the changed paths are handed on, in ms. A file being
   * saved or copied sends events while it is written, so it is handed on once, whole; a move
   * arrives as a delete and a create in one batch. Default: 2000.
   */
  debounceMs?: number;
  /** Interval of the periodic scan that replaces events past the system's watch limit, in ms. Default: 60,000. */
  pollIntervalMs?: number;
  /** Changed paths (files or folders, created, changed or deleted), once per quiet period. */
  onChanges: (paths: string[]) => Promise<void>;
  /** Periodic scan of the whole folder (polling mode), or one after the watcher said events were lost. */
  onRescan: () => Promise<void>;
  /** The mode changed; `reason` says why (e.g. the watch limit). */
  onModeChange?: (mode: WatchMode, reason: string) => void;
  /** An error that did not stop the watch (a folder that cannot be read, a failed sync). */
  onError?: (error: unknown) => void;
  /** @internal Tests pass one that fails as the system's does. Default: @parcel/watcher's `subscribe`. */
  subscribeFn?: typeof parcelWatcher.subscribe;
  /** @internal Default: {@link inotifyRefusal}. */
  inotifyRefusalFn?: typeof inotifyRefusal;
  /** @internal Default: {@link inotifyWatchedInodes}. */
  watchedInodesFn?: typeof inotifyWatchedInodes;
}

/** Native subscriptions open in this process: while there is one, @parcel/watcher's inotify instance exists. */
let openSubscriptions = 0;

/**
 * @parcel/watcher's errors carry no `code`, only the C library's `strerror` text: inotify_add_watch
 * fails with ENOSPC past fs.inotify.max_user_watches ("inotify_add_watch on '…' failed: No space
 * left on device"), inotify_init1 with EMFILE past fs.inotify.max_user_instances or the
 * descriptor limit ("Unable to initialize inotify: Too many open files"). Longest text first.
 */
const LIMIT_MESSAGES: [RegExp, string][] = [
  [/no space left on device/i, 'ENOSPC'],
  [/too many open files in system/i, 'ENFILE'],
  [/too many open files/i, 'EMFILE'],
];

/** The errno name when `error` says the system ran out of watches or descriptors, else undefined. */
function limitCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') return code;
  const message = error instanceof Error ? error.message : String(error);
  return LIMIT_MESSAGES.find(([re]) => re.test(message))?.[1];
}

/**
 * Follows one folder with @parcel/watcher (one native recursive watch: inotify per folder on
 * Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows; no per-file state in JS, where
 * chokidar held ~9 KiB a file). Folders the {@link IgnoreRules} leave out are ignored natively,
 * so they cost no watches; each event still passes the same rules as "add folder". Changed paths
 * are gathered into a set and handed on once the folder has been quiet for `debounceMs`; one
 * hand-over runs at a time, and what arrives meanwhile waits for the next. When the system's
 * watch limit is reached, it scans the folder every `pollIntervalMs` instead, and says so.
 *
 * Two limits @parcel/watcher 2.6 does not report are checked from outside it (inotifyLimits.ts):
 * with no inotify instance left `subscribe` would hang the process, so the first subscription
 * asks the kernel first; and a folder created once the watch limit is reached is reported but
 * left unwatched, so each created folder is looked up among the watched ones.
 */
export class FolderWatcher {
  readonly root: string;
  readonly #options: FolderWatcherOptions;
  readonly #rules: IgnoreRules;
  #subscription: AsyncSubscription | null = null;
  #poller: NodeJS.Timeout | null = null;
  #debounce: NodeJS.Timeout | null = null;
  #pending = new Set<string>();
  #running: Promise<void> = Promise.resolve();
  #busy = false;
  #rescanDue = false;
  #mode: WatchMode = 'events';
  #disposed = false;

  private constructor(root: string, options: FolderWatcherOptions) {
    this.root = root;
    this.#options = options;
    this.#rules = new IgnoreRules(root, { patterns: options.ignore ?? [] });
  }

  /** Starts watching; resolves once the tree is being watched (or polling took over). */
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
    await this.#unsubscribe();
    await this.#running;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  async #start(): Promise<void> {
    const { subscribeFn = parcelWatcher.subscribe, inotifyRefusalFn = inotifyRefusal } = this.#options;
    try {
      const refused = openSubscriptions === 0 ? await inotifyRefusalFn(this.root) : undefined;
      if (refused) return await this.#fallBackToPolling(refused);
      this.#subscription = await subscribeFn(this.root, (error, events) => this.#received(error, events), {
        ignore: this.#rules.watcherGlobs(),
      });
      openSubscriptions++;
    } catch (error) {
      const code = limitCode(error);
      if (code === undefined) throw error;
      await this.#fallBackToPolling(code);
    }
  }

  #received(error: Error | null, events: readonly Event[]): void {
    if (this.#disposed || this.#mode !== 'events') return;
    const created: string[] = [];
    for (const event of events) {
      if (this.#rules.covers(event.path)) continue;
      this.#changed(event.path);
      if (event.type === 'create') created.push(event.path);
    }
    if (created.length > 0) void this.#checkCreatedFolders(created).catch((e: unknown) => this.#options.onError?.(e));
    if (!error) return;
    if (/must be re-?scanned/i.test(error.message)) {
      // FSEvents' "Too many events. File system must be re-scanned.": the stream goes on, but
      // events were dropped, so a scan finds them.
      this.#options.onError?.(error);
      this.#pending.clear();
      this.#rescan();
      return;
    }
    // Any other error has ended the native watch (inotify's "Unable to poll: Interrupted system
    // call", parcel-bundler/watcher#253; Windows' buffer overflow): scans take over.
    void this.#fallBackToPolling(limitCode(error), error);
  }

  async #unsubscribe(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = null;
    if (!subscription) return;
    openSubscriptions--;
    await subscription.unsubscribe().catch((error: unknown) => this.#options.onError?.(error));
  }

  /** A created folder the native watcher reported but does not watch: the watch limit was reached after it started. */
  async #checkCreatedFolders(paths: readonly string[]): Promise<void> {
    let watched: Set<bigint> | null | undefined;
    for (const path of paths) {
      const stat = await lstat(path, { bigint: true }).catch(() => null);
      if (!stat?.isDirectory()) continue;
      watched ??= await (this.#options.watchedInodesFn ?? inotifyWatchedInodes)();
      if (watched === null) return;
      if (!watched.has(stat.ino)) return this.#fallBackToPolling('ENOSPC', undefined, path);
    }
  }

  /**
   * `limit`: the errno name of the system limit reached (`unwatched`: the folder it left without
   * a watch); without one, `stopped` ended the watch.
   */
  async #fallBackToPolling(limit: string | undefined, stopped?: Error, unwatched?: string): Promise<void> {
    if (this.#mode === 'polling' || this.#disposed) return;
    this.#mode = 'polling';
    await this.#unsubscribe();
    const { pollIntervalMs = 60_000 } = this.#options;
    const every = `scanning the folder every ${Math.round(pollIntervalMs / 1000)} s instead`;
    this.#options.onModeChange?.(
      'polling',
      limit === undefined
        ? `the watcher stopped (${stopped?.message}); ${every}`
        : `the system's limit on watched files was reached (${limit}` +
            (unwatched ? `: the new folder ${unwatched} could not be watched` : '') +
            `); ${every}` +
            (limit === 'ENOSPC' ? ' (raise fs.inotify.max_user_watches to get events again)' : '') +
            (limit === 'EMFILE'
              ? ' (raise fs.inotify.max_user_instances or the open-files limit to get events again)'
              : ''),
    );
    this.#poller = setInterval(() => this.#rescan(), pollIntervalMs);
    this.#poller.unref();
    // What changed between the last event and the switch is found by a scan now.
    this.#pending.clear();
    if (this.#debounce) clearTimeout(this.#debounce);
    this.#debounce = null;
    this.#rescan();
  }

  /** A scan of the whole folder, now or, during a hand-over, right after it. */
  #rescan(): void {
    if (this.#busy) this.#rescanDue = true;
    else this.#handOver(() => this.#options.onRescan());
  }

  #changed(path: string): void {
    this.#pending.add(path);
    const { debounceMs = 2000 } = this.#options;
    if (this.#debounce) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = null;
      this.#flush();
    }, debounceMs);
  }

  #flush(): void {
    if (this.#busy || this.#pending.size === 0) return;
    const paths = [...this.#pending];
    this.#pending.clear();
    this.#handOver(() => this.#options.onChanges(paths));
  }

  /** Runs one hand-over after the one before; then a scan that came due meanwhile, or what gathered meanwhile. */
  #handOver(work: () => Promise<void>): void {
    if (this.#busy) return;
    this.#busy = true;
    this.#running = work()
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#busy = false;
        if (this.#disposed) return;
        if (this.#rescanDue) {
          // A scan finds what the gathered paths name too.
          this.#rescanDue = false;
          this.#pending.clear();
          this.#rescan();
        } else if (!this.#debounce) this.#flush();
      });
  }
}
