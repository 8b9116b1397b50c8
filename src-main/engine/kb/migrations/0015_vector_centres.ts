import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Sign-bit codes centred on their family's mean vector: each vector_state row gets the centre its
 * codes are signs around (float32 blob; NULL for zero, plain sign bits) and the vector count it was
 * computed at (0: never). Codes written before this version are plain sign bits, which is what a
 * NULL centre says, so nothing is recoded here: VectorIndexRepository recentres a family (inside a
 * transaction) on its next write or first search, once it holds enough vectors.
 */
export const migration0015: Migration = {
  version: 15,
  name: 'vector_centres',
  up(db: Database): void {
    db.exec(`
      ALTER TABLE vector_state ADD COLUMN centre BLOB;
      ALTER TABLE vector_state ADD COLUMN centred_at INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
