import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

const VECTOR_KINDS = [
  ['chunk', 'chunks'],
  ['entity_name', 'entities'],
  ['entity_summary', 'entities'],
  ['triple', 'triples'],
] as const;

/**
 * The first schema. Notes on choices that are not obvious:
 * - documents keep chunk_count / triple_count, maintained by triggers, so the document table can
 *   be sorted by them with an index (50k rows) and stays right whatever path changes provenance.
 * - triples reference entities without cascade: deleting an entity that still has triples is a bug.
 * - vectors are plain tables (float blob, and the sign-bit code loaded into the in-memory binary
 *   index) rather than vec0: vec0 KNN and point lookups were measured too slow for the 1M goal
 *   (see VectorIndexRepository.knn). Their foreign keys cascade as a safety net; code deletes them explicitly.
 * - ids of documents, chunks, entities and triples are AUTOINCREMENT: an id is never reused, so a
 *   stale reference (a job in flight, a cited chunk in QA history) can never point at a new row.
 * - FTS5 tables are contentless (the text lives in chunks/triples); rowid = the row's id.
 */
export const migration0001: Migration = {
  version: 1,
  name: 'initial',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

      CREATE TABLE documents (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        path TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        hash TEXT NOT NULL,
        mime TEXT NOT NULL,
        size INTEGER NOT NULL,
        language TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'indexing', 'indexed', 'error')),
        error TEXT,
        chunk_count INTEGER NOT NULL DEFAULT 0,
        triple_count INTEGER NOT NULL DEFAULT 0,
        added_at TEXT NOT NULL
      );
      CREATE INDEX documents_title ON documents (title COLLATE NOCASE);
      CREATE INDEX documents_mime ON documents (mime);
      CREATE INDEX documents_language ON documents (language);
      CREATE INDEX documents_size ON documents (size);
      CREATE INDEX documents_chunk_count ON documents (chunk_count);
      CREATE INDEX documents_triple_count ON documents (triple_count);
      CREATE INDEX documents_status ON documents (status);
      CREATE INDEX documents_added_at ON documents (added_at);

      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        text TEXT NOT NULL,
        language TEXT,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL,
        page INTEGER,
        summary TEXT,
        english_text TEXT,
        UNIQUE (document_id, ord)
      );

      CREATE TABLE entities (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        summary TEXT,
        summary_stale INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX entities_type ON entities (type);
      CREATE INDEX entities_stale ON entities (summary_stale);

      CREATE TABLE entity_aliases (
        alias_key TEXT PRIMARY KEY,
        alias TEXT NOT NULL,
        entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      CREATE INDEX entity_aliases_entity ON entity_aliases (entity_id);

      CREATE TABLE triples (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source_id INTEGER NOT NULL REFERENCES entities (id),
        relation TEXT NOT NULL,
        target_id INTEGER NOT NULL REFERENCES entities (id),
        description TEXT,
        UNIQUE (source_id, relation, target_id)
      );
      CREATE INDEX triples_target ON triples (target_id);
      CREATE INDEX triples_relation ON triples (relation);

      CREATE TABLE triple_chunks (
        triple_id INTEGER NOT NULL REFERENCES triples (id) ON DELETE CASCADE,
        chunk_id INTEGER NOT NULL REFERENCES chunks (id) ON DELETE CASCADE,
        PRIMARY KEY (triple_id, chunk_id)
      ) WITHOUT ROWID;
      CREATE INDEX triple_chunks_chunk ON triple_chunks (chunk_id, triple_id);

      CREATE TRIGGER chunks_count_ins AFTER INSERT ON chunks BEGIN
        UPDATE documents SET chunk_count = chunk_count + 1 WHERE id = NEW.document_id;
      END;
      CREATE TRIGGER chunks_count_del AFTER DELETE ON chunks BEGIN
        UPDATE documents SET chunk_count = chunk_count - 1 WHERE id = OLD.document_id;
      END;
      -- Provenance goes before its chunk, so the trigger below can still see the chunk's document.
      CREATE TRIGGER chunks_provenance_del BEFORE DELETE ON chunks BEGIN
        DELETE FROM triple_chunks WHERE chunk_id = OLD.id;
      END;
      -- A document counts a triple once, however many of its chunks support it.
      CREATE TRIGGER triple_chunks_count_ins AFTER INSERT ON triple_chunks BEGIN
        UPDATE documents SET triple_count = triple_count + 1
        WHERE id = (SELECT document_id FROM chunks WHERE id = NEW.chunk_id)
          AND NOT EXISTS (
            SELECT 1 FROM triple_chunks tc JOIN chunks c ON c.id = tc.chunk_id
            WHERE tc.triple_id = NEW.triple_id AND tc.chunk_id <> NEW.chunk_id
              AND c.document_id = (SELECT document_id FROM chunks WHERE id = NEW.chunk_id));
      END;
      CREATE TRIGGER triple_chunks_count_del AFTER DELETE ON triple_chunks BEGIN
        UPDATE documents SET triple_count = triple_count - 1
        WHERE id = (SELECT document_id FROM chunks WHERE id = OLD.chunk_id)
          AND NOT EXISTS (
            SELECT 1 FROM triple_chunks tc JOIN chunks c ON c.id = tc.chunk_id
            WHERE tc.triple_id = OLD.triple_id
              AND c.document_id = (SELECT document_id FROM chunks WHERE id = OLD.chunk_id));
      END;

      CREATE TABLE vector_state (kind TEXT PRIMARY KEY, generation INTEGER NOT NULL) WITHOUT ROWID;

      CREATE VIRTUAL TABLE fts_chunk USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE fts_triple USING fts5 (text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE fts_entity USING fts5 (name, aliases, summary, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');

      CREATE TABLE checkpoints (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;

      CREATE TABLE llm_cache (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        prompt_name TEXT NOT NULL,
        prompt_version TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        hits INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE qa_history (
        id INTEGER PRIMARY KEY,
        question TEXT NOT NULL,
        question_key TEXT NOT NULL,
        strategy TEXT NOT NULL,
        answer_json TEXT NOT NULL,
        asked_at TEXT NOT NULL
      );
    `);
    for (const [kind, owner] of VECTOR_KINDS) {
      db.exec(`
        CREATE TABLE vec_${kind} (id INTEGER PRIMARY KEY REFERENCES ${owner} (id) ON DELETE CASCADE, vector BLOB NOT NULL);
        CREATE TABLE vcode_${kind} (id INTEGER PRIMARY KEY REFERENCES ${owner} (id) ON DELETE CASCADE, code BLOB NOT NULL);
        INSERT INTO vector_state (kind, generation) VALUES ('${kind}', 0);
      `);
    }
  },
};
