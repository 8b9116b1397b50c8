import { entityKey } from './entityKey.js';
import type { StatementCache } from './utils/StatementCache.js';
import type { HistoryRecord } from './types.js';

/** The questions asked of one KB and their answers (qa_history). */
export class HistoryRepository {
  readonly #statements: StatementCache;

  constructor(statements: StatementCache) {
    this.#statements = statements;
  }

  addHistory(question: string, strategy: string, answerJson: string): number {
    return this.#statements
      .get(
        'INSERT INTO qa_history (question, question_key, strategy, answer_json, asked_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
      )
      .pluck()
      .get(question, entityKey(question), strategy, answerJson, new Date().toISOString()) as number;
  }

  /** Newest first; `search` is a case-insensitive substring of the question ('' for all). */
  listHistory(search = '', limit = 100): HistoryRecord[] {
    return this.#statements
      .get(
        `SELECT id, question, strategy, answer_json AS answerJson, asked_at AS askedAt FROM qa_history
       WHERE :key = '' OR instr(question_key, :key) > 0 ORDER BY id DESC LIMIT :limit`,
      )
      .all({ key: entityKey(search), limit }) as HistoryRecord[];
  }
}
