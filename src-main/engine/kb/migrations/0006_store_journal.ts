import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * What an external SPARQL store (kb/store/) has not seen yet. While `store_sync.tracking` is set
 * (a store is configured for this KB), triggers note every document and entity whose RDF changes,
 * whoever changes it (indexing, re-indexing, removal, merges, summaries), in `store_journal`; a
 * sync re-sends what the journal names and deletes those rows only once the store has them, so a
 * sync cut short resumes where it stopped. An RDF import or a change of store asks for a full
 * publish instead (`full_needed`). With no store configured the triggers write nothing.
 */
export const migration0006: Migration = {
  version: 6,
  name: 'store_journal',
  up(db: Database): void {
    const tracking = '(SELECT tracking FROM store_sync WHERE id = 1) = 1';
    const note = (kind: 'document' | 'entity', id: string): string =>
      `INSERT INTO store_journal (kind, record_id) VALUES ('${kind}', ${id});`;
    const noteTripleEnds = (row: 'NEW' | 'OLD'): string =>
      `INSERT INTO store_journal (kind, record_id) SELECT 'entity', source_id FROM triples WHERE id = ${row}.triple_id
       UNION SELECT 'entity', target_id FROM triples WHERE id = ${row}.triple_id;`;
    db.exec(`
      CREATE TABLE store_sync (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        tracking INTEGER NOT NULL DEFAULT 0,
        -- Which store and graph the published copy is in (kb/store/StoreConfig.ts storeTarget).
        target TEXT,
        full_needed INTEGER NOT NULL DEFAULT 1,
        published_at TEXT,
        synced_at TEXT,
        last_error TEXT
      );
      CREATE TABLE store_journal (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('document', 'entity')),
        record_id INTEGER NOT NULL
      );
      CREATE INDEX store_journal_record ON store_journal (kind, record_id);

      CREATE TRIGGER store_documents_ins AFTER INSERT ON documents WHEN ${tracking} BEGIN ${note('document', 'NEW.id')} END;
      CREATE TRIGGER store_documents_upd AFTER UPDATE OF path, title, hash, mime, language ON documents
        WHEN ${tracking} BEGIN ${note('document', 'NEW.id')} END;
      CREATE TRIGGER store_documents_del AFTER DELETE ON documents WHEN ${tracking} BEGIN ${note('document', 'OLD.id')} END;
      CREATE TRIGGER store_chunks_ins AFTER INSERT ON chunks WHEN ${tracking} BEGIN ${note('document', 'NEW.document_id')} END;
      CREATE TRIGGER store_chunks_upd AFTER UPDATE ON chunks
        WHEN ${tracking} BEGIN ${note('document', 'NEW.document_id')} ${note('document', 'OLD.document_id')} END;
      CREATE TRIGGER store_chunks_del AFTER DELETE ON chunks WHEN ${tracking} BEGIN ${note('document', 'OLD.document_id')} END;
      CREATE TRIGGER store_entities_ins AFTER INSERT ON entities WHEN ${tracking} BEGIN ${note('entity', 'NEW.id')} END;
      CREATE TRIGGER store_entities_upd AFTER UPDATE OF name, type, summary ON entities WHEN ${tracking} BEGIN ${note('entity', 'NEW.id')} END;
      CREATE TRIGGER store_entities_del AFTER DELETE ON entities WHEN ${tracking} BEGIN ${note('entity', 'OLD.id')} END;
      CREATE TRIGGER store_aliases_ins AFTER INSERT ON entity_aliases WHEN ${tracking} BEGIN ${note('entity', 'NEW.entity_id')} END;
      CREATE TRIGGER store_aliases_upd AFTER UPDATE ON entity_aliases
        WHEN ${tracking} BEGIN ${note('entity', 'NEW.entity_id')} ${note('entity', 'OLD.entity_id')} END;
      CREATE TRIGGER store_aliases_del AFTER DELETE ON entity_aliases WHEN ${tracking} BEGIN ${note('entity', 'OLD.entity_id')} END;
      -- A triple is published with both its entities (deleted and rewritten with them).
      CREATE TRIGGER store_triples_ins AFTER INSERT ON triples WHEN ${tracking} BEGIN ${note('entity', 'NEW.source_id')} ${note('entity', 'NEW.target_id')} END;
      CREATE TRIGGER store_triples_upd AFTER UPDATE ON triples WHEN ${tracking} BEGIN
        ${note('entity', 'NEW.source_id')} ${note('entity', 'NEW.target_id')} ${note('entity', 'OLD.source_id')} ${note('entity', 'OLD.target_id')}
      END;
      CREATE TRIGGER store_triples_del AFTER DELETE ON triples WHEN ${tracking} BEGIN ${note('entity', 'OLD.source_id')} ${note('entity', 'OLD.target_id')} END;
      CREATE TRIGGER store_triple_chunks_ins AFTER INSERT ON triple_chunks WHEN ${tracking} BEGIN ${noteTripleEnds('NEW')} END;
      CREATE TRIGGER store_triple_chunks_del AFTER DELETE ON triple_chunks WHEN ${tracking} BEGIN ${noteTripleEnds('OLD')} END;
      CREATE TRIGGER store_imported_ins AFTER INSERT ON imported_statements WHEN ${tracking} BEGIN UPDATE store_sync SET full_needed = 1 WHERE id = 1; END;
      CREATE TRIGGER store_imported_del AFTER DELETE ON imported_statements WHEN ${tracking} BEGIN UPDATE store_sync SET full_needed = 1 WHERE id = 1; END;
    `);
  },
};
