import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { PolyhopError } from '../base/errors.js';
import { storageError } from '../base/storageError.js';
import { schemaVersion } from './migrations/migrate.js';
import type { EmbedderRecord, KbMeta } from './types.js';

/** A KB file's meta keys; `format` tells a Polyhop KB from any other SQLite file. */
export const KB_FORMAT = 'polyhop-kb';

/**
 * better-sqlite3 is built for the Node that installed it; the Electron window runs on Electron's
 * ABI, so `npm start` (bin/electronSqlite.js) points this at a binding built for Electron.
 */
const NATIVE_BINDING = process.env.POLYHOP_SQLITE_BINDING;

/** @internal What every SQLite connection of the engine must be opened with (see NATIVE_BINDING). */
export const SQLITE_BINDING: { nativeBinding?: string } = NATIVE_BINDING ? { nativeBinding: NATIVE_BINDING } : {};

/** A connection to `file` with sqlite-vec loaded, foreign keys on and (writable) WAL; BAD_INPUT when SQLite cannot open it. */
export function openDatabase(file: string, readonly: boolean, busyTimeoutMs: number): Db {
  let db: Db;
  try {
    db = new Database(file, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs, ...SQLITE_BINDING });
  } catch (error) {
    throw notAKb(file, error instanceof Error ? error.message : String(error), error);
  }
  try {
    sqliteVec.load(db);
    db.pragma('foreign_keys = ON');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('cache_size = -32768');
    return db;
  } catch (error) {
    db.close();
    throw notAKb(file, error instanceof Error ? error.message : String(error), error);
  }
}

export function notAKb(file: string, why: string, cause?: unknown): PolyhopError {
  return new PolyhopError('BAD_INPUT', `${file} is not a Polyhop knowledge base: ${why}`, { details: { file }, cause });
}

/** The KbMeta of a meta table's key/value rows. */
export function metaFrom(meta: Map<string, string>, schema: number): KbMeta {
  const embedder = meta.get('embedder');
  return {
    name: meta.get('name') ?? '',
    description: meta.get('description') ?? '',
    baseIri: meta.get('baseIri') ?? '',
    createdAt: meta.get('createdAt') ?? '',
    schemaVersion: schema,
    embedder: embedder === undefined ? null : (JSON.parse(embedder) as EmbedderRecord),
  };
}

/** Meta of the KB at `file` without migrating it (works for newer schemas too). */
export function readKbMeta(file: string): KbMeta {
  if (!existsSync(file))
    throw new PolyhopError('NOT_FOUND', `${file}: no knowledge base file here`, { details: { file } });
  const db = openDatabase(file, true, 5000);
  try {
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    if (meta.get('format') !== KB_FORMAT) throw notAKb(file, 'its meta is missing');
    return metaFrom(meta, schemaVersion(db));
  } catch (error) {
    if (error instanceof PolyhopError) throw error;
    throw notAKb(file, error instanceof Error ? error.message : String(error), error);
  } finally {
    db.close();
  }
}

/** Checks that `file` is an intact Polyhop KB this version can read (BAD_INPUT / UNSUPPORTED otherwise). */
export function verifyKbFile(file: string): KbMeta {
  const meta = readKbMeta(file);
  const db = openDatabase(file, true, 5000);
  try {
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok')
      throw new PolyhopError('BAD_INPUT', `${file}: the database is damaged (${String(result)})`, {
        details: { file },
      });
  } finally {
    db.close();
  }
  return meta;
}

/**
 * Writes a consistent copy of `db` to `file` with SQLite's online backup (writers go on
 * meanwhile), checks the copy's integrity, and only then gives it its name: a failed or
 * interrupted backup never leaves a broken file under `file`.
 */
export async function backupKb(
  db: Db,
  file: string,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const part = `${file}.part`;
  // SQLite's sidecars of the copy: a WAL-mode file opened read-only leaves both behind (issue 24 point 16).
  const removePart = (): void => {
    for (const f of [part, `${part}-wal`, `${part}-shm`]) rmSync(f, { force: true });
  };
  try {
    removePart();
    await db.backup(part, {
      progress: ({ totalPages, remainingPages }) => (onProgress?.(totalPages - remainingPages, totalPages), 256),
    });
    // The copy inherits the KB's WAL mode; a backup is one self-contained file, so it gets the
    // rollback journal (closing a writable connection folds any WAL back in and removes it).
    const copy = new Database(part, { fileMustExist: true, ...SQLITE_BINDING });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    verifyKbFile(part);
    renameSync(part, file);
    rmSync(`${part}-wal`, { force: true });
    rmSync(`${part}-shm`, { force: true });
  } catch (error) {
    // An unusable path (NUL byte, name too long) cannot be removed either: report the first failure.
    try {
      removePart();
    } catch {
      // nothing could have been written there
    }
    throw storageError(error, file, 'back up to');
  }
}
