import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_SCHEMA_VERSION, migrate, schemaVersion } from '../../../../src-main/engine/kb/migrations/migrate.js';
import { eachMemoryDatabase, insertDocument } from '../../../support/migrationDatabase.js';

describe('migration 0014_answer_graphs', () => {
  let db: Database.Database;
  eachMemoryDatabase((opened) => (db = opened));

  const addDocument = (path: string, title: string, hash: string): number => insertDocument(db, { path, title, hash });
  const answerCiting = (...cited: { documentId: number; documentTitle: string }[]): string =>
    JSON.stringify({
      question: 'q',
      evidence: [{ kind: 'chunk', citations: cited.map((c) => ({ ...c, chunkId: 1, page: null })) }],
    });
  const addHistory = (answerJson: string): number =>
    Number(
      db
        .prepare(
          `INSERT INTO qa_history (question, question_key, strategy, answer_json, asked_at) VALUES ('q', 'q', 'dr', ?, 'now')`,
        )
        .run(answerJson).lastInsertRowid,
    );
  const staleOf = (id: number) =>
    db
      .prepare(
        'SELECT stale_reason AS reason, stale_document_id AS documentId, stale_document_title AS title FROM qa_history WHERE id = ?',
      )
      .get(id);

  it('reads the cited documents of older answers from their JSON', () => {
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(14);
    migrate(db, ':memory:', 13);
    const kept = addDocument('/a.txt', 'a.txt', 'hash-a');
    const fresh = addHistory(answerCiting({ documentId: kept, documentTitle: 'a.txt' }));
    // Document 99 was removed before this version: the answer citing it starts stale.
    const orphan = addHistory(
      answerCiting({ documentId: kept, documentTitle: 'a.txt' }, { documentId: 99, documentTitle: 'gone.pdf' }),
    );
    const unreadable = addHistory('not json');
    migrate(db, ':memory:', 14);
    expect(schemaVersion(db)).toBe(14);
    expect(
      db.prepare('SELECT document_id, history_id, document_hash FROM qa_answer_sources ORDER BY 2, 1').raw().all(),
    ).toEqual([
      [kept, fresh, 'hash-a'],
      [kept, orphan, 'hash-a'],
      [99, orphan, ''],
    ]);
    expect(staleOf(fresh)).toEqual({ reason: null, documentId: null, title: null });
    expect(staleOf(orphan)).toEqual({ reason: 'removed', documentId: 99, title: 'gone.pdf' });
    expect(staleOf(unreadable)).toMatchObject({ reason: null });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('marks the answers citing a deleted document stale, keeping an earlier reason, and drops rows with their history', () => {
    migrate(db, ':memory:');
    const a = addDocument('/a.txt', 'a.txt', 'ha');
    const b = addDocument('/b.txt', 'b.txt', 'hb');
    const citesA = addHistory('{}');
    const citesB = addHistory('{}');
    const source = db.prepare(
      `INSERT INTO qa_answer_sources (document_id, history_id, document_hash, document_title) VALUES (?, ?, 'h', ?)`,
    );
    source.run(a, citesA, 'a.txt');
    source.run(b, citesB, 'b.txt');
    db.prepare(`INSERT INTO qa_answer_graphs (history_id, graph_iri, nquads) VALUES (?, 'urn:g', '')`).run(citesB);
    db.prepare(
      `UPDATE qa_history SET stale_at = 'then', stale_reason = 'reindexed', stale_document_id = ? WHERE id = ?`,
    ).run(b, citesB);
    db.prepare('DELETE FROM documents WHERE id IN (?, ?)').run(a, b);
    expect(staleOf(citesA)).toEqual({ reason: 'removed', documentId: a, title: 'a.txt' });
    expect(staleOf(citesB)).toMatchObject({ reason: 'reindexed', documentId: b });
    expect(() => db.prepare(`UPDATE qa_history SET stale_reason = 'moved' WHERE id = ?`).run(citesA)).toThrow(/CHECK/);
    db.prepare('DELETE FROM qa_history WHERE id = ?').run(citesB);
    expect(db.prepare('SELECT COUNT(*) FROM qa_answer_graphs').pluck().get()).toBe(0);
    expect(db.prepare('SELECT history_id FROM qa_answer_sources').pluck().all()).toEqual([citesA]);
  });
});
