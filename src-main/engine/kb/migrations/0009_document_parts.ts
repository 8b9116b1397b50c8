import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Documents that are parts of a file (an MBOX's messages, an e-mail's attachments) name the
 * document of that file, their container. The reference has no cascade on purpose: parts have
 * chunks, vectors and triples of their own, so the repository removes them with their container
 * (DocumentRepository.deleteDocument), and a raw delete of a container that still has parts fails.
 */
export const migration0009: Migration = {
  version: 9,
  name: 'document_parts',
  up(db: Database): void {
    db.exec(`
      ALTER TABLE documents ADD COLUMN container_id INTEGER REFERENCES documents (id);
      CREATE INDEX documents_container ON documents (container_id) WHERE container_id IS NOT NULL;
    `);
  },
};
