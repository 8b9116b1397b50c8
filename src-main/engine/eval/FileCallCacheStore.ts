import type { CallCacheStore } from '../models/CallCache.js';
import { JsonlFile } from './JsonlFile.js';

/**
 * The call cache of one evaluation run, kept in its folder (`llm-cache.jsonl`), so a resumed
 * run repeats no translation or judge call and the folder alone reproduces the report.
 */
export class FileCallCacheStore implements CallCacheStore {
  readonly #file: JsonlFile<{ key: string; value: string }>;
  readonly #entries = new Map<string, string>();

  constructor(path: string) {
    this.#file = new JsonlFile(path);
    for (const { key, value } of this.#file.readAll()) this.#entries.set(key, value);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  put(key: string, value: string): void {
    if (this.#entries.get(key) === value) return;
    this.#entries.set(key, value);
    this.#file.append({ key, value });
  }
}
