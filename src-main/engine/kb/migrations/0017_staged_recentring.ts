import type { Database } from 'better-sqlite3';
import type { Migration } from './Migration.js';

/**
 * Recentring in batches (the KB upgrade job), so that a large family's recode blocks no search.
 * Each vcode_* table gets a second code column, `code_alt`; vector_state says which column holds
 * the live codes (`code_column`, the ones searched, signs around `centre`) and what a recentre in
 * progress has staged: the running sum of the vectors read so far (`staged_sum`, float64, while
 * the mean is taken), then the new centre (`staged_centre`) whose codes go into the other column;
 * `staged_count` vectors were summed, and `staged_after` is the last id done. The switch to the new
 * centre is one row update. Nothing is staged here: existing codes stay live in `code`.
 */
export const migration0017: Migration = {
  version: 17,
  name: 'staged_recentring',
  up(db: Database): void {
    db.exec(`
      ALTER TABLE vector_state ADD COLUMN code_column TEXT NOT NULL DEFAULT 'code' CHECK (code_column IN ('code', 'code_alt'));
      ALTER TABLE vector_state ADD COLUMN staged_sum BLOB;
      ALTER TABLE vector_state ADD COLUMN staged_centre BLOB;
      ALTER TABLE vector_state ADD COLUMN staged_count INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE vector_state ADD COLUMN staged_after INTEGER NOT NULL DEFAULT 0;
    `);
    for (const kind of db.prepare('SELECT kind FROM vector_state ORDER BY kind').pluck().all() as string[])
      db.exec(`ALTER TABLE vcode_${kind} ADD COLUMN code_alt BLOB`);
  },
};
