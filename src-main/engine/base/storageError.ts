import { PolyhopError } from './errors.js';

/**
 * Turns a failed write into an error the user can act on: a full disk (ENOSPC, EDQUOT, SQLite's
 * SQLITE_FULL) is STORAGE_FULL, anything else BAD_INPUT naming the file. PolyhopErrors pass through.
 */
export function storageError(error: unknown, file: string, action = 'write'): PolyhopError {
  if (error instanceof PolyhopError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (isStorageFull(error)) {
    return new PolyhopError('STORAGE_FULL', `No space left on the device to ${action} ${file}`, {
      details: { file },
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new PolyhopError('BAD_INPUT', `Cannot ${action} ${file}: ${reason}`, {
    details: { file, code },
    cause: error,
  });
}

/** A write that failed because the disk (or the user's quota, or SQLite's page cap) is full. */
export function isStorageFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}
