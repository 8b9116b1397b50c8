import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Partial summaries of hub entities (PartialSummaryRepository.ts): Reduce summarises an entity
 * whose facts do not fit one call in consecutive groups, and those partial summaries are kept
 * beside the capped final summary, with a vector family `entity_partial` (vec_/vcode_ tables and a
 * vector_state row, as 0001 makes them). A partial goes with its entity (cascade); its vectors go
 * with it. Existing KBs start with none: the next Reduce of a hub entity writes them.
 */
export const migration0007: Migration = {
  version: 7,
  name: 'entity_partials',
  up(db: Database): void {
    db.exec(`
      CREATE TABLE entity_partials (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        first_fact INTEGER NOT NULL,
        last_fact INTEGER NOT NULL,
        fact_count INTEGER NOT NULL,
        text TEXT NOT NULL,
        UNIQUE (entity_id, ord)
      );
      CREATE TABLE vec_entity_partial (id INTEGER PRIMARY KEY REFERENCES entity_partials (id) ON DELETE CASCADE, vector BLOB NOT NULL);
      CREATE TABLE vcode_entity_partial (id INTEGER PRIMARY KEY REFERENCES entity_partials (id) ON DELETE CASCADE, code BLOB NOT NULL);
      INSERT INTO vector_state (kind, generation) VALUES ('entity_partial', 0);
    `);
  },
};
