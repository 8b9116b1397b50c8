import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Conversations: a thread of one KB holds its turns in order; a turn keeps the question as asked,
 * the standalone question retrieval ran on (a follow-up rewritten from the thread) and the
 * history entry that holds its answer. Deleting a thread deletes its turns, not the history.
 */
export const migration0008: Migration = {
  version: 8,
  name: 'threads',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE qa_threads (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        title_key TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        -- Raised past every other thread's when it is created or continued: the list's order (clocks tie).
        touched INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE qa_thread_turns (
        id INTEGER PRIMARY KEY,
        thread_id INTEGER NOT NULL REFERENCES qa_threads (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        question TEXT NOT NULL,
        question_key TEXT NOT NULL,
        standalone_question TEXT NOT NULL,
        standalone_key TEXT NOT NULL,
        history_id INTEGER REFERENCES qa_history (id) ON DELETE SET NULL,
        asked_at TEXT NOT NULL,
        UNIQUE (thread_id, position)
      );
    `);
  },
};
