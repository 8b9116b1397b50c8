import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';

/** Why an entry under a folder is not a document candidate. */
export type IgnoreReason = 'hidden' | 'system' | 'ignored';

/**
 * Names never taken as documents, in any folder: OS droppings, version-control and dependency
 * folders. Compared lower-case.
 */
const SYSTEM_NAMES = new Set([
  'thumbs.db',
  'desktop.ini',
  '$recycle.bin',
  'system volume information',
  '__macosx',
  'lost+found',
  '.ds_store',
  '.git',
  '.hg',
  '.svn',
  '.bzr',
  'cvs',
  '_darcs',
  'node_modules',
  'bower_components',
  '__pycache__',
  '.venv',
  '.tox',
]);

/**
 * Office and editor lock, backup and temporary files: `~$x.docx` (Microsoft Office owner file),
 * `.~lock.x.odt#` (LibreOffice), `x~` (editor backup), `*.tmp`, `*.swp`, `*.crdownload`, `*.part`
 * (downloads in progress). A watched folder sees these come and go while a document is edited.
 * Globs on the lower-case name, so the watcher's native filter can take the same list.
 */
const TEMPORARY_NAMES = ['~$*', '.~lock.*#', '*~', '*.{tmp,temp,swp,swx,crdownload,part}'];
const isTemporaryName = picomatch(TEMPORARY_NAMES, { dot: true });

/** `node_modules` -> `[nN][oO][dD][eE]_[mM]…`: the native watcher's globs have no case-insensitive flag. */
function anyCase(glob: string): string {
  return glob.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

export interface IgnoreRulesOptions {
  /** Include dot-files and dot-folders (VCS folders stay ignored). Default: false. */
  includeHidden?: boolean;
  /**
   * The user's glob patterns (picomatch syntax), matched against the path relative to the root with
   * `/` separators; a pattern without `/` matches a name at any depth (`*.bak`, `drafts`). A matched
   * folder is not entered. Default: none.
   */
  patterns?: readonly string[];
}

/**
 * What "add folder", its re-scan and the watcher leave out, decided once so the three agree:
 * hidden entries, system, VCS and dependency folders, lock and temporary files, user patterns.
 */
export class IgnoreRules {
  readonly root: string;
  readonly patterns: readonly string[];
  readonly #includeHidden: boolean;
  readonly #match: ((path: string) => boolean) | undefined;

  constructor(root: string, options: IgnoreRulesOptions = {}) {
    this.root = root;
    this.patterns = [...(options.patterns ?? [])];
    this.#includeHidden = options.includeHidden ?? false;
    const names = this.patterns.filter((p) => !p.includes('/'));
    const paths = this.patterns.filter((p) => p.includes('/'));
    const byName = names.length > 0 ? picomatch(names, { dot: true, basename: true }) : undefined;
    const byPath = paths.length > 0 ? picomatch(paths, { dot: true }) : undefined;
    this.#match = byName || byPath ? (rel) => (byName?.(rel) ?? false) || (byPath?.(rel) ?? false) : undefined;
  }

  /** Why the entry at `path` (under the root) is left out, or undefined when it is not. */
  reason(path: string): IgnoreReason | undefined {
    const rel = relative(this.root, path);
    if (rel === '' || rel.startsWith('..')) return undefined;
    const name = rel.slice(rel.lastIndexOf(sep) + 1);
    const lower = name.toLowerCase();
    if (SYSTEM_NAMES.has(lower) || isTemporaryName(lower)) return 'system';
    if (!this.#includeHidden && name.startsWith('.')) return 'hidden';
    if (this.#match?.(sep === '/' ? rel : rel.split(sep).join('/'))) return 'ignored';
    return undefined;
  }

  /**
   * The same rules as globs relative to the root, for a native watcher's `ignore` option, so an
   * ignored folder is never entered nor watched. The watcher still passes each event through
   * {@link covers}, which stays the rule.
   */
  watcherGlobs(): string[] {
    // `$` and `+` would be read as glob syntax (`]+[` a repeat): bracketed, they are characters.
    const names = [...SYSTEM_NAMES].map((n) => anyCase(n.replace(/[$+]/g, '[$&]')));
    names.push(...TEMPORARY_NAMES.map(anyCase));
    if (!this.#includeHidden) names.push('.*');
    return [`**/{${names.join(',')}}`, ...this.patterns.map((p) => (p.includes('/') ? p : `**/${p}`))];
  }

  /** Whether `path` or any folder between it and the root is left out. */
  covers(path: string): boolean {
    const rel = relative(this.root, path);
    if (rel === '' || rel.startsWith('..')) return false;
    let at = this.root;
    for (const part of rel.split(sep)) {
      at = join(at, part);
      if (this.reason(at)) return true;
    }
    return false;
  }
}
