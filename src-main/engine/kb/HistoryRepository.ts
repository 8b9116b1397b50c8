import { entityKey } from './entityKey.js';
import type { RepositoryContext } from './RepositoryContext.js';
import type { HistoryRecord } from './types.js';

/** The questions asked of one KB and their answers (qa_history). */
export class HistoryRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  addHistory(question: string, strategy: string, answerJson: string): number {
    return this.#context.statements
      .get(
        'INSERT INTO qa_history (question, question_key, strategy, answer_json, asked_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
      )
      .pluck()
      .get(question, entityKey(question), strategy, answerJson, new Date().toISOString()) as number;
  }

  /** Newest first; `search` is a case-insensitive substring of the question ('' for all). */
  listHistory(search = '', limit = 100): HistoryRecord[] {
    return this.#context.statements
      .get(
        `SELECT id, question, strategy, answer_json AS answerJson, asked_at AS askedAt FROM qa_history
       WHERE :key = '' OR instr(question_key, :key) > 0 ORDER BY id DESC LIMIT :limit`,
      )
      .all({ key: entityKey(search), limit }) as HistoryRecord[];
  }
}
