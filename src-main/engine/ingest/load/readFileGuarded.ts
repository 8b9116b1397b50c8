import { createHash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
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
  const file = await GuardedFileHandle.open(path, options);
  try {
    const { bytes, sha256 } = await file.readAll(true, options);
    await file.checkUnchanged();
    return { bytes: bytes!, size: file.size, sha256 };
  } finally {
    await file.close();
  }
}

/**
 * An open regular file within the size cap, for readers that must not hold it whole (zip
 * archives are read in place through {@link fd}): hash it with `readAll(false)`, read it, then
 * `checkUnchanged()` proves what was read is the version that was hashed.
 */
export class GuardedFileHandle {
  readonly #path: string;
  readonly #handle: FileHandle;
  readonly #before: Stats;
  #closed = false;

  private constructor(path: string, handle: FileHandle, before: Stats) {
    this.#path = path;
    this.#handle = handle;
    this.#before = before;
  }

  /** Opens `path`, refusing what is not a non-empty regular file within `maxBytes`. */
  static async open(
    path: string,
    options: Pick<ReadFileGuardedOptions, 'maxBytes' | 'signal'>,
  ): Promise<GuardedFileHandle> {
    const { maxBytes, signal } = options;
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
          { details: { size: before.size, limit: maxBytes } },
        );
      }
      return new GuardedFileHandle(path, handle, before);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  get size(): number {
    return this.#before.size;
  }

  get fd(): number {
    return this.#handle.fd;
  }

  /** The first `n` bytes (fewer in a shorter file). */
  async head(n: number): Promise<Buffer> {
    const buffer = Buffer.alloc(Math.min(n, this.size));
    const { bytesRead } = await this.#handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  }

  /** Reads the file to its end, hashing; keeps the bytes only when `keep` (otherwise memory stays at one chunk). */
  async readAll(
    keep: boolean,
    options: Omit<ReadFileGuardedOptions, 'maxBytes'> = {},
  ): Promise<{ bytes?: Buffer; sha256: string }> {
    const { chunkBytes = 1 << 20, onProgress, signal } = options;
    const size = this.size;
    const bytes = keep ? Buffer.allocUnsafe(size) : undefined;
    const scratch = keep ? undefined : Buffer.allocUnsafe(Math.min(chunkBytes, size));
    const hash = createHash('sha256');
    let offset = 0;
    for (;;) {
      throwIfAborted(signal);
      const want = Math.min(chunkBytes, size - offset);
      if (want === 0) {
        // The file must end exactly where fstat said; one more byte means it grew.
        const probe = await this.#handle.read(Buffer.alloc(1), 0, 1, offset);
        if (probe.bytesRead > 0) throw badInput(this.#path, 'file changed while being read (it grew)');
        break;
      }
      const target = bytes ?? scratch!;
      const at = bytes ? offset : 0;
      const { bytesRead } = await this.#handle.read(target, at, want, offset);
      if (bytesRead === 0) throw badInput(this.#path, 'file changed while being read (it shrank)');
      hash.update(target.subarray(at, at + bytesRead));
      offset += bytesRead;
      onProgress?.(offset, size);
    }
    return { ...(bytes ? { bytes } : {}), sha256: hash.digest('hex') };
  }

  /** BAD_INPUT when the open file moved since it was opened, or the path now names another file or none. */
  async checkUnchanged(): Promise<void> {
    const path = this.#path;
    const after = await this.#handle.stat();
    if (!sameVersion(this.#before, after)) throw badInput(path, 'file changed while being read');
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
    if (!sameVersion(this.#before, current)) throw badInput(path, 'file was replaced while being read');
  }

  /** Closes the file; later calls do nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close();
  }
}
