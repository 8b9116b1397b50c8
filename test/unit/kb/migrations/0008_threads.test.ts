import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase } from '../../../support/migrationDatabase.js';

describe('migration 0008_threads', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const addHistory = (question: string): number =>
    Number(
      db
        .prepare(
          `INSERT INTO qa_history (question, question_key, strategy, answer_json, asked_at) VALUES (?, ?, 'dr', '{}', 'now')`,
        )
        .run(question, question.toLowerCase()).lastInsertRowid,
    );

  it('upgrades a version-7 database and keeps its history', () => {
    migrate(db, ':memory:', 7);
    const kept = addHistory('Who was the king of Ithaca?');
    migrate(db, ':memory:', 8);
    expect(schemaVersion(db)).toBe(8);
    expect(db.prepare('SELECT question FROM qa_history WHERE id = ?').pluck().get(kept)).toBe(
      'Who was the king of Ithaca?',
    );
    expect(db.prepare('SELECT COUNT(*) FROM qa_threads').pluck().get()).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('deletes a thread with its turns but not their history, and unlinks a turn whose history entry goes', () => {
    migrate(db, ':memory:');
    const thread = Number(
      db
        .prepare(
          `INSERT INTO qa_threads (title, title_key, created_at, updated_at, touched) VALUES ('t', 't', 'now', 'now', 1)`,
        )
        .run().lastInsertRowid,
    );
    const turn = db.prepare(
      `INSERT INTO qa_thread_turns (thread_id, position, question, question_key, standalone_question, standalone_key, history_id, asked_at)
       VALUES (?, ?, 'q', 'q', 'q', 'q', ?, 'now')`,
    );
    const first = addHistory('q1');
    const second = addHistory('q2');
    turn.run(thread, 1, first);
    turn.run(thread, 2, second);
    expect(() => turn.run(thread, 2, second)).toThrow(/UNIQUE/);
    db.prepare('DELETE FROM qa_history WHERE id = ?').run(second);
    expect(db.prepare('SELECT history_id FROM qa_thread_turns ORDER BY position').pluck().all()).toEqual([first, null]);
    db.prepare('DELETE FROM qa_threads WHERE id = ?').run(thread);
    expect(db.prepare('SELECT COUNT(*) FROM qa_thread_turns').pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM qa_history').pluck().get()).toBe(1);
  });
});
