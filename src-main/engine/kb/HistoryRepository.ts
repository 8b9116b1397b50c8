import { AnswerGraphRepository, staleOf, type StaleColumns } from './AnswerGraphRepository.js';
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
    const rows = this.#context.statements
      .get(
        `SELECT h.id, h.question, h.strategy, h.answer_json AS answerJson, h.asked_at AS askedAt,
          ${AnswerGraphRepository.STALE_COLUMNS} FROM qa_history h
       WHERE :key = '' OR instr(h.question_key, :key) > 0 ORDER BY h.id DESC LIMIT :limit`,
      )
      .all({ key: entityKey(search), limit }) as (Omit<HistoryRecord, 'stale'> & StaleColumns)[];
    return rows.map(({ id, question, strategy, answerJson, askedAt, ...stale }) => ({
      id,
      question,
      strategy,
      answerJson,
      askedAt,
      stale: staleOf(stale),
    }));
  }
}
