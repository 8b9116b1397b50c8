import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Answers as data: each history entry gets its RDF (PROV-O) named graph, kept as N-Quads as it
 * was written when the answer was given, and the documents it cites (with the content hash they
 * had). A trigger marks an answer stale when a document it cites is deleted, whatever path deletes
 * it (remove, re-index, a changed file, a watched folder); re-indexing marks it first, with its
 * own reason, and the first reason stays. Answers given before this version get their cited
 * documents from their JSON; those citing a document already gone start stale.
 */
export const migration0014: Migration = {
  version: 14,
  name: 'answer_graphs',
  up(db: Database): void {
    db.exec(`
      ALTER TABLE qa_history ADD COLUMN stale_at TEXT;
      ALTER TABLE qa_history ADD COLUMN stale_reason TEXT CHECK (stale_reason IN ('reindexed', 'removed'));
      ALTER TABLE qa_history ADD COLUMN stale_document_id INTEGER;
      ALTER TABLE qa_history ADD COLUMN stale_document_title TEXT;
      CREATE TABLE qa_answer_graphs (
        history_id INTEGER PRIMARY KEY REFERENCES qa_history (id) ON DELETE CASCADE,
        graph_iri TEXT NOT NULL,
        nquads TEXT NOT NULL
      );
      -- No foreign key to documents: the row must outlive the document to say the answer is stale.
      CREATE TABLE qa_answer_sources (
        document_id INTEGER NOT NULL,
        history_id INTEGER NOT NULL REFERENCES qa_history (id) ON DELETE CASCADE,
        document_hash TEXT NOT NULL,
        document_title TEXT NOT NULL,
        PRIMARY KEY (document_id, history_id)
      ) WITHOUT ROWID;
      CREATE INDEX qa_answer_sources_history ON qa_answer_sources (history_id);
      CREATE TRIGGER qa_answers_stale_on_document_delete AFTER DELETE ON documents BEGIN
        UPDATE qa_history SET stale_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), stale_reason = 'removed',
          stale_document_id = OLD.id, stale_document_title = OLD.title
        WHERE stale_at IS NULL AND id IN (SELECT history_id FROM qa_answer_sources WHERE document_id = OLD.id);
      END;
      INSERT OR IGNORE INTO qa_answer_sources (document_id, history_id, document_hash, document_title)
        SELECT json_extract(c.value, '$.documentId'), h.id, COALESCE(d.hash, ''),
               COALESCE(d.title, json_extract(c.value, '$.documentTitle'), '')
        FROM qa_history h, json_each(h.answer_json, '$.evidence') e, json_each(e.value, '$.citations') c
        LEFT JOIN documents d ON d.id = json_extract(c.value, '$.documentId')
        WHERE json_valid(h.answer_json);
      UPDATE qa_history SET stale_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), stale_reason = 'removed',
        stale_document_id = (SELECT s.document_id FROM qa_answer_sources s WHERE s.history_id = qa_history.id
          AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = s.document_id) ORDER BY s.document_id LIMIT 1),
        stale_document_title = (SELECT s.document_title FROM qa_answer_sources s WHERE s.history_id = qa_history.id
          AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = s.document_id) ORDER BY s.document_id LIMIT 1)
      WHERE EXISTS (SELECT 1 FROM qa_answer_sources s WHERE s.history_id = qa_history.id
        AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = s.document_id));
    `);
  },
};
