import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent } from '../base/concurrency.js';
import { badInput } from './badInput.js';
import { describeFsError } from './load/readFileGuarded.js';
import { extensionOf, formatForPath, UNSUPPORTED_FORMATS, type DocumentFormat } from './load/formats.js';
import { IgnoreRules, type IgnoreReason } from './watch/IgnoreRules.js';

export interface ScannedFile {
  /** Absolute path as found under the root (not resolved through symlinks). */
  path: string;
  format: DocumentFormat;
  size: number;
  mtimeMs: number;
  sha256: string;
}

export type SkipReason =
  IgnoreReason | 'unsupported' | 'symlink' | 'symlink-loop' | 'duplicate' | 'special' | 'unreadable' | 'too-deep';

export interface SkippedEntry {
  path: string;
  reason: SkipReason;
  /** Human-readable detail, e.g. the unsupported extension or the OS error. */
  detail: string;
}

export interface FolderScan {
  root: string;
  /** Sorted by path. */
  files: ScannedFile[];
  skipped: SkippedEntry[];
}

export interface ScanFolderOptions {
  /**
   * Follow symbolic links to files and folders. Default: false (links are reported as skipped),
   * so an added folder never reaches outside itself. When true, folders are tracked by real
   * path, so loops and repeated targets are visited once.
   */
  followSymlinks?: boolean;
  /** Include dot-files and dot-folders. Default: false. */
  includeHidden?: boolean;
  /** The user's ignore patterns (see {@link IgnoreRules}). Default: none. */
  ignore?: readonly string[];
  /** The folder `ignore` patterns are relative to, when scanning a part of it. Default: the root. */
  ignoreRoot?: string;
  /** Folders deeper than this are reported and not entered. Default: 64. */
  maxDepth?: number;
  /** Files hashed at once. Default: 4. */
  hashConcurrency?: number;
  /** Called as files are hashed (done, total). */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

const IGNORE_DETAIL: Readonly<Record<IgnoreReason, string>> = {
  hidden: 'hidden entry',
  system: 'system, version-control, dependency, lock or temporary file',
  ignored: 'matches an ignore pattern',
};

/** sha256 of a file, streamed in 1 MiB reads (bounded memory for any size). */
export async function hashFile(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Lists the documents under a folder, recursively, with size and content hash, for "add folder"
 * and "re-scan" (the caller diffs with the KB by path + hash). Hidden and system entries,
 * unsupported extensions, links (unless followed), loops and unreadable entries are reported in
 * `skipped`, never thrown; only a root that is not a readable folder is BAD_INPUT.
 */
export async function scanFolder(root: string, options: ScanFolderOptions = {}): Promise<FolderScan> {
  const {
    followSymlinks = false,
    includeHidden = false,
    ignore = [],
    maxDepth = 64,
    hashConcurrency = 4,
    onProgress,
    signal,
  } = options;
  const absRoot = resolve(root);
  let rootStat: Stats;
  try {
    rootStat = await stat(absRoot);
  } catch (error) {
    throw badInput(absRoot, describeFsError(error), { cause: error });
  }
  if (!rootStat.isDirectory()) throw badInput(absRoot, 'is not a folder');
  const rules = new IgnoreRules(options.ignoreRoot ? resolve(options.ignoreRoot) : absRoot, {
    includeHidden,
    patterns: ignore,
  });

  const skipped: SkippedEntry[] = [];
  const found: { path: string; format: DocumentFormat }[] = [];
  const seenDirs = new Set<string>([await realpath(absRoot)]);
  const seenFiles = new Set<string>();
  // Iterative walk: folder depth is bounded by maxDepth, never by the call stack.
  const stack: { dir: string; depth: number }[] = [{ dir: absRoot, depth: 0 }];
  while (stack.length > 0) {
    throwIfAborted(signal);
    const { dir, depth } = stack.pop()!;
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch (error) {
      skipped.push({ path: dir, reason: 'unreadable', detail: describeFsError(error) });
      continue;
    }
    const subdirs: string[] = [];
    for (const name of names) {
      const path = join(dir, name);
      const ignored = rules.reason(path);
      if (ignored) {
        skipped.push({ path, reason: ignored, detail: IGNORE_DETAIL[ignored] });
        continue;
      }
      let info: Stats;
      try {
        info = await lstat(path);
        if (info.isSymbolicLink()) {
          if (!followSymlinks) {
            skipped.push({ path, reason: 'symlink', detail: 'symbolic link (not followed)' });
            continue;
          }
          info = await stat(path);
        }
      } catch (error) {
        skipped.push({
          path,
          reason: (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'symlink-loop' : 'unreadable',
          detail: describeFsError(error),
        });
        continue;
      }
      if (info.isDirectory()) {
        const real = await realpath(path).catch(() => path);
        if (seenDirs.has(real)) {
          skipped.push({ path, reason: 'symlink-loop', detail: `folder already scanned as ${real}` });
        } else if (depth + 1 > maxDepth) {
          skipped.push({ path, reason: 'too-deep', detail: `more than ${maxDepth} folders deep` });
        } else {
          seenDirs.add(real);
          subdirs.push(path);
        }
        continue;
      }
      if (!info.isFile()) {
        skipped.push({ path, reason: 'special', detail: 'not a regular file (device, pipe or socket)' });
        continue;
      }
      const format = formatForPath(path);
      if (!format || extensionOf(path) === '') {
        const ext = extensionOf(path);
        skipped.push({
          path,
          reason: 'unsupported',
          detail: UNSUPPORTED_FORMATS[ext] ?? (ext ? `unsupported file type ${ext}` : 'no file extension'),
        });
        continue;
      }
      const real = await realpath(path).catch(() => path);
      if (seenFiles.has(real)) {
        skipped.push({ path, reason: 'duplicate', detail: `same file as ${real}` });
        continue;
      }
      seenFiles.add(real);
      found.push({ path, format });
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push({ dir: subdirs[i]!, depth: depth + 1 });
  }

  let done = 0;
  const hashed = await mapConcurrent(found, hashConcurrency, async (f): Promise<ScannedFile | undefined> => {
    throwIfAborted(signal);
    try {
      const info = await stat(f.path);
      const sha256 = await hashFile(f.path, signal);
      return { ...f, size: info.size, mtimeMs: info.mtimeMs, sha256 };
    } catch (error) {
      throwIfAborted(signal);
      skipped.push({ path: f.path, reason: 'unreadable', detail: describeFsError(error) });
      return undefined;
    } finally {
      onProgress?.(++done, found.length);
    }
  });
  const files = hashed
    .filter((f): f is ScannedFile => f !== undefined)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { root: absRoot, files, skipped };
}
