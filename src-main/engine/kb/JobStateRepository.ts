import type { CallCacheStore } from '../models/CallCache.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { SqliteCallCache } from './SqliteCallCache.js';
import type { CallCacheStats } from './types.js';

/** A job's resumable state in one KB: checkpoints (JSON values by key) and the LLM-call cache. */
export class JobStateRepository {
  readonly #context: RepositoryContext;
  #callCache: SqliteCallCache | undefined;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  getCheckpoint<T = unknown>(key: string): T | undefined {
    const value = this.#context.statements.get('SELECT value FROM checkpoints WHERE key = ?').pluck().get(key) as
      string | undefined;
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  /** Stores a JSON-serialisable value under `key` (e.g. `index:doc:12:map`). */
  setCheckpoint(key: string, value: unknown): void {
    this.#context.statements
      .get('INSERT OR REPLACE INTO checkpoints (key, value, updated_at) VALUES (?, ?, ?)')
      .run(key, JSON.stringify(value), new Date().toISOString());
  }

  /** Deletes every checkpoint whose key starts with `prefix`. */
  clearCheckpoints(prefix: string): void {
    this.#context.statements
      .get('DELETE FROM checkpoints WHERE substr(key, 1, length(:prefix)) = :prefix')
      .run({ prefix });
  }

  /** The LLM-call cache kept in this KB. */
  get callCache(): CallCacheStore {
    return this.#sqliteCallCache();
  }

  cacheStats(): CallCacheStats {
    return this.#sqliteCallCache().stats();
  }

  #sqliteCallCache(): SqliteCallCache {
    return (this.#callCache ??= new SqliteCallCache(this.#context.db));
  }
}
