import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { throwIfAborted } from '../../base/abort.js';
import { badInput, formatBytes } from '../badInput.js';

export interface ReadFileGuardedOptions {
  /** Files larger than this are refused before reading. Required: the caller picks it per format. */
  maxBytes: number;
  /** Bytes per read call. Default: 1 MiB. */
  chunkBytes?: number;
  /** Called after each read call (bytes read so far, size at open). */
  onProgress?: (bytesRead: number, size: number) => void;
  signal?: AbortSignal;
}

export interface GuardedFile {
  bytes: Buffer;
  size: number;
  sha256: string;
}

/** Reason for a failed open or stat, in words a user can act on. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'file not found (deleted or moved?)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ELOOP':
      return 'too many symbolic links (a symlink loop)';
    default:
      return `cannot read file (${code ?? (error instanceof Error ? error.message : String(error))})`;
  }
}

function sameVersion(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.dev === b.dev;
}

/**
 * Reads a whole regular file with a size cap, hashing as it goes, and proves the bytes are one
 * version of the file: the size and mtime must not move during the read and the path must
 * still name the same file afterwards. Anything else is a BAD_INPUT naming what happened.
 */
export async function readFileGuarded(path: string, options: ReadFileGuardedOptions): Promise<GuardedFile> {
  const { maxBytes, chunkBytes = 1 << 20, onProgress, signal } = options;
  throwIfAborted(signal);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw badInput(path, describeFsError(error), { cause: error });
  }
  try {
    const before = await handle.stat();
    if (before.isDirectory()) throw badInput(path, 'is a directory, not a file');
    if (!before.isFile()) throw badInput(path, 'is not a regular file (device, pipe or socket)');
    if (before.size === 0) throw badInput(path, 'file is empty');
    if (before.size > maxBytes) {
      throw badInput(
        path,
        `file is ${formatBytes(before.size)}, above the ${formatBytes(maxBytes)} limit for this format`,
        {
          details: { size: before.size, limit: maxBytes },
        },
      );
    }
    const bytes = Buffer.allocUnsafe(before.size);
    const hash = createHash('sha256');
    let offset = 0;
    for (;;) {
      throwIfAborted(signal);
      const want = Math.min(chunkBytes, bytes.length - offset);
      if (want === 0) {
        // The file must end exactly where fstat said; one more byte means it grew.
        const probe = await handle.read(Buffer.alloc(1), 0, 1, offset);
        if (probe.bytesRead > 0) throw badInput(path, 'file changed while being read (it grew)');
        break;
      }
      const { bytesRead } = await handle.read(bytes, offset, want, offset);
      if (bytesRead === 0) throw badInput(path, 'file changed while being read (it shrank)');
      hash.update(bytes.subarray(offset, offset + bytesRead));
      offset += bytesRead;
      onProgress?.(offset, before.size);
    }
    const after = await handle.stat();
    if (!sameVersion(before, after)) throw badInput(path, 'file changed while being read');
    let current: Stats;
    try {
      current = await stat(path);
    } catch (error) {
      throw badInput(
        path,
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'file was deleted while being read'
          : describeFsError(error),
        { cause: error },
      );
    }
    if (!sameVersion(before, current)) throw badInput(path, 'file was replaced while being read');
    return { bytes, size: before.size, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}
