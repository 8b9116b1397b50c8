import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Keeps the original statements of imported RDF graphs (N-Quads text, in import order), so an
 * imported KG exports and queries with its own IRIs and literals, not only as verbalised triples.
 */
export const migration0002: Migration = {
  version: 2,
  name: 'imported RDF statements',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE imported_statements (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source TEXT NOT NULL,
        nquads TEXT NOT NULL
      );
    `);
  },
};
