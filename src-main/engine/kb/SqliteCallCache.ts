import type { Database, Statement } from 'better-sqlite3';
import type { CallCacheStore } from '../models/CallCache.js';
import type { CallCacheStats } from './types.js';

/**
 * The LLM-call cache kept in a KB's SQLite file, so a resumed or repeated indexing job makes no
 * call twice. Each hit is counted (one small write) for {@link stats}.
 *
 * @internal Reach it through kb.jobState.callCache.
 */
export class SqliteCallCache implements CallCacheStore {
  readonly #db: Database;
  readonly #get: Statement;
  readonly #put: Statement;

  constructor(db: Database) {
    this.#db = db;
    this.#get = db.readonly
      ? db.prepare('SELECT value FROM llm_cache WHERE key = ?').pluck()
      : db.prepare('UPDATE llm_cache SET hits = hits + 1 WHERE key = ? RETURNING value').pluck();
    this.#put = db.prepare(
      `INSERT OR REPLACE INTO llm_cache (key, value, prompt_name, prompt_version, prompt_tokens, completion_tokens, hits, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    );
  }

  get(key: string): string | undefined {
    return this.#get.get(key) as string | undefined;
  }

  put(
    key: string,
    value: string,
    meta: { promptName: string; promptVersion: string; promptTokens: number; completionTokens: number },
  ): void {
    this.#put.run(
      key,
      value,
      meta.promptName,
      meta.promptVersion,
      meta.promptTokens,
      meta.completionTokens,
      new Date().toISOString(),
    );
  }

  stats(): CallCacheStats {
    const byPrompt = this.#db
      .prepare(
        'SELECT prompt_name AS promptName, COUNT(*) AS entries, SUM(hits) AS hits FROM llm_cache GROUP BY prompt_name ORDER BY prompt_name',
      )
      .all() as CallCacheStats['byPrompt'];
    const totals = this.#db
      .prepare(
        `SELECT COUNT(*) AS entries, COALESCE(SUM(hits), 0) AS hits, COALESCE(SUM(prompt_tokens), 0) AS promptTokens,
           COALESCE(SUM(completion_tokens), 0) AS completionTokens FROM llm_cache`,
      )
      .get() as Omit<CallCacheStats, 'byPrompt'>;
    return { ...totals, byPrompt };
  }
}
