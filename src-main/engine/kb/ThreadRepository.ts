import { PolyhopError } from '../base/errors.js';
import { AnswerGraphRepository, staleOf, type AnswerStaleness, type StaleColumns } from './AnswerGraphRepository.js';
import { entityKey } from './entityKey.js';
import type { RepositoryContext } from './RepositoryContext.js';

/** One conversation of a KB, as listed. */
export interface ThreadRecord {
  id: number;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** How many turns it has. */
  turns: number;
  /** The question of its latest turn as asked (null while it has none). */
  lastQuestion: string | null;
}

/** One turn: the question as asked, the standalone question it was answered as, and its history entry. */
export interface ThreadTurnRecord {
  id: number;
  threadId: number;
  /** 1 for the first turn. */
  position: number;
  question: string;
  standaloneQuestion: string;
  /** The history entry with the answer (null if that entry is gone). */
  historyId: number | null;
  /** From the history entry (null if it is gone). */
  strategy: string | null;
  answerJson: string | null;
  askedAt: string;
  /** Set once a document its answer cites was re-indexed or removed. */
  stale: AnswerStaleness | null;
}

const MAX_TITLE = 200;

const THREAD_COLUMNS = `t.id, t.title, t.created_at AS createdAt, t.updated_at AS updatedAt,
  (SELECT COUNT(*) FROM qa_thread_turns WHERE thread_id = t.id) AS turns,
  (SELECT question FROM qa_thread_turns WHERE thread_id = t.id ORDER BY position DESC LIMIT 1) AS lastQuestion`;

/** The conversations of one KB (qa_threads, qa_thread_turns); answers stay in qa_history. */
export class ThreadRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /** A new, empty thread; a blank title becomes "Untitled". */
  createThread(title: string): ThreadRecord {
    const clean = cleanTitle(title);
    const now = new Date().toISOString();
    const id = this.#context.statements
      .get(
        `INSERT INTO qa_threads (title, title_key, created_at, updated_at, touched)
         VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(touched), 0) + 1 FROM qa_threads)) RETURNING id`,
      )
      .pluck()
      .get(clean, entityKey(clean), now, now) as number;
    return this.thread(id);
  }

  /** Throws NOT_FOUND for an unknown id. */
  thread(id: number): ThreadRecord {
    const row = this.#context.statements.get(`SELECT ${THREAD_COLUMNS} FROM qa_threads t WHERE t.id = ?`).get(id) as
      ThreadRecord | undefined;
    if (!row)
      throw new PolyhopError('NOT_FOUND', `No thread ${id} in this knowledge base`, { details: { thread: id } });
    return row;
  }

  /**
   * Most recently continued first; `search` is a case-insensitive substring of the title or of any
   * turn's question, as asked or standalone ('' for all).
   */
  listThreads(search = '', limit = 100): ThreadRecord[] {
    return this.#context.statements
      .get(
        `SELECT ${THREAD_COLUMNS} FROM qa_threads t
         WHERE :key = '' OR instr(t.title_key, :key) > 0 OR EXISTS (
           SELECT 1 FROM qa_thread_turns u WHERE u.thread_id = t.id
             AND (instr(u.question_key, :key) > 0 OR instr(u.standalone_key, :key) > 0))
         ORDER BY t.touched DESC, t.id DESC LIMIT :limit`,
      )
      .all({ key: entityKey(search), limit }) as ThreadRecord[];
  }

  renameThread(id: number, title: string): ThreadRecord {
    const clean = cleanTitle(title);
    this.thread(id);
    this.#context.statements
      .get('UPDATE qa_threads SET title = ?, title_key = ? WHERE id = ?')
      .run(clean, entityKey(clean), id);
    return this.thread(id);
  }

  /** Deletes the thread and its turns (their history entries stay); false when there was none. */
  deleteThread(id: number): boolean {
    return this.#context.statements.get('DELETE FROM qa_threads WHERE id = ?').run(id).changes > 0;
  }

  /** Appends a turn at the end of the thread. */
  addTurn(
    threadId: number,
    turn: { question: string; standaloneQuestion: string; historyId: number },
  ): ThreadTurnRecord {
    return this.#context.transaction(() => {
      this.thread(threadId);
      const now = new Date().toISOString();
      const id = this.#context.statements
        .get(
          `INSERT INTO qa_thread_turns
             (thread_id, position, question, question_key, standalone_question, standalone_key, history_id, asked_at)
           VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM qa_thread_turns WHERE thread_id = ?), ?, ?, ?, ?, ?, ?)
           RETURNING id`,
        )
        .pluck()
        .get(
          threadId,
          threadId,
          turn.question,
          entityKey(turn.question),
          turn.standaloneQuestion,
          entityKey(turn.standaloneQuestion),
          turn.historyId,
          now,
        ) as number;
      this.#context.statements
        .get('UPDATE qa_threads SET updated_at = ?, touched = (SELECT MAX(touched) + 1 FROM qa_threads) WHERE id = ?')
        .run(now, threadId);
      return this.turns(threadId).find((t) => t.id === id)!;
    });
  }

  /** The thread's turns in order, each with its answer from the history. Throws NOT_FOUND for an unknown thread. */
  turns(threadId: number): ThreadTurnRecord[] {
    this.thread(threadId);
    const rows = this.#context.statements
      .get(
        `SELECT u.id, u.thread_id AS threadId, u.position, u.question, u.standalone_question AS standaloneQuestion,
                u.history_id AS historyId, h.strategy, h.answer_json AS answerJson, u.asked_at AS askedAt,
                ${AnswerGraphRepository.STALE_COLUMNS}
         FROM qa_thread_turns u LEFT JOIN qa_history h ON h.id = u.history_id
         WHERE u.thread_id = ? ORDER BY u.position`,
      )
      .all(threadId) as (Omit<ThreadTurnRecord, 'stale'> & StaleColumns)[];
    return rows.map(({ staleAt, staleReason, staleDocumentId, staleDocumentTitle, ...turn }) => ({
      ...turn,
      stale: staleOf({ staleAt, staleReason, staleDocumentId, staleDocumentTitle }),
    }));
  }
}

function cleanTitle(title: string): string {
  const clean = title.normalize('NFC').replace(/\s+/gu, ' ').trim();
  if (!clean) return 'Untitled';
  return clean.length > MAX_TITLE ? `${clean.slice(0, MAX_TITLE - 1)}…` : clean;
}
