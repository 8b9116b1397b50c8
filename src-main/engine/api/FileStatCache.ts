import { stat } from 'node:fs/promises';

/** Options for {@link FileStatCache}. */
export interface FileStatCacheOptions {
  /** Entries kept, least recently used dropped first. Default: 4. */
  maxEntries?: number;
  /** Sum of the entries' weights kept (a value heavier than this is not cached). Default: 64 MiB worth. */
  maxWeight?: number;
}

interface Entry<T> {
  size: number;
  mtimeMs: number;
  value: T;
  weight: number;
}

/**
 * What was read from a file, kept per (path, sha256 it was indexed with) while the file's size and
 * modification time stay as they were: opening citations one after the other must not read (or
 * OCR) the whole file again per click, and a file changed since is read again (so that the
 * reader's own check refuses it).
 */
export class FileStatCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;

  constructor(options: FileStatCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 4;
    this.#maxWeight = options.maxWeight ?? 64 * 1024 ** 2;
  }

  /**
   * The cached value, else `read()`'s, which is kept with the file's stat from before the read.
   * `part` names what in the file the value is of, when not the whole file (a mail's attachment).
   */
  async get(path: string, sha256: string, read: () => Promise<T>, weigh: (value: T) => number, part = ''): Promise<T> {
    const key = `${sha256}\0${path}\0${part}`;
    const before = await stat(path).catch(() => null);
    const hit = this.#entries.get(key);
    this.#entries.delete(key);
    if (hit && before && hit.size === before.size && hit.mtimeMs === before.mtimeMs) {
      this.#entries.set(key, hit);
      return hit.value;
    }
    const value = await read();
    const weight = weigh(value);
    if (before && weight <= this.#maxWeight) {
      this.#entries.set(key, { size: before.size, mtimeMs: before.mtimeMs, value, weight });
      this.#evict();
    }
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    let total = 0;
    for (const e of this.#entries.values()) total += e.weight;
    for (const [key, e] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && total <= this.#maxWeight) break;
      this.#entries.delete(key);
      total -= e.weight;
    }
  }
}
