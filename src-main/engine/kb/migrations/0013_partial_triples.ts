import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Which triples a hub entity's partial summary summarises (`triple_ids`, a JSON array of triple
 * ids), so that it cites the chunks of its own facts rather than every chunk of the entity.
 * Partials written before have none (NULL) and cite the entity's chunks as before, until the next
 * Reduce of their entity writes them again.
 */
export const migration0013: Migration = {
  version: 13,
  name: 'partial_triples',
  up(db: Database): void {
    db.exec('ALTER TABLE entity_partials ADD COLUMN triple_ids TEXT');
  },
};
