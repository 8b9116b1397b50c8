import type { Database } from 'better-sqlite3';
import { PolyhopError } from '../../base/errors.js';
import { migration0001 } from './0001_initial.js';
import { migration0002 } from './0002_imported_statements.js';
import { migration0003 } from './0003_passages.js';
import { migration0004 } from './0004_linear_triple_index.js';
import { migration0005 } from './0005_original_language_chunks.js';
import { migration0006 } from './0006_store_journal.js';
import { migration0007 } from './0007_entity_partials.js';
import { migration0008 } from './0008_threads.js';
import { migration0009 } from './0009_document_parts.js';
import { migration0013 } from './0013_partial_triples.js';
import { migration0014 } from './0014_answer_graphs.js';
import { migration0015 } from './0015_vector_centres.js';
import { migration0016 } from './0016_document_pages.js';
import { migration0017 } from './0017_staged_recentring.js';
import { migration0018 } from './0018_document_ocr.js';
import type { Migration } from './Migration.js';

/** Every migration, in order; append new numbered files here. */
export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
  migration0018,
];
/** The highest version (numbers are given out per branch, so the list may have gaps until they merge). */
export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings `db` up to `target` (default: latest), one transaction per migration so a crash leaves a
 * whole version. Refuses a file written by a newer schema: downgrading would lose data silently.
 */
export function migrate(db: Database, file: string, target = LATEST_SCHEMA_VERSION): void {
  const current = schemaVersion(db);
  assertSupportedVersion(current, file);
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

/** Throws UNSUPPORTED for a file written by a newer schema than this build knows. */
export function assertSupportedVersion(current: number, file: string): void {
  if (current > LATEST_SCHEMA_VERSION) {
    throw new PolyhopError(
      'UNSUPPORTED',
      `${file}: this knowledge base was written by a newer Polyhop ` +
        `(schema v${current}; this version reads up to v${LATEST_SCHEMA_VERSION}). Update Polyhop to open it.`,
      { details: { file, schemaVersion: current, supported: LATEST_SCHEMA_VERSION } },
    );
  }
}
