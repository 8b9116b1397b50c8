import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import { entityKey } from './entityKey.js';
import { isKbName, KB_NAME_RULE } from './kbNaming.js';
import { KnowledgeBase } from './KnowledgeBase.js';
import { LATEST_SCHEMA_VERSION } from './migrations/migrate.js';
import { checkBaseIri } from './utils/baseIri.js';
import type { KbMeta } from './types.js';

export interface KbRegistryOptions {
  /** The app's data directory; KBs live in `<dataDir>/kbs/<id>/kb.sqlite`. */
  dataDir: string;
  /** Passed to every {@link KnowledgeBase.open}. Default: 5000. */
  busyTimeoutMs?: number;
}

export interface CreateKbOptions {
  /** 1–64 letters, digits, space, '_', '-', '.'; starts with a letter or digit; unique (case-insensitive). */
  name: string;
  /** Default: ''. */
  description?: string;
  /** Absolute http(s) or urn IRI ending in '/' or '#'. Default: `urn:polyhop:kb:<id>/`. */
  baseIri?: string;
}

export interface KbEntry extends KbMeta {
  /** Stable directory name; survives renames. */
  id: string;
  /** The KB's SQLite file. */
  file: string;
  /** Why the KB cannot be opened (e.g. written by a newer Polyhop), or null. */
  problem: string | null;
}

/**
 * The KBs of one data directory, addressed by name. Each lives in its own directory named by a
 * stable id (readable slug + random suffix), so renaming touches only its meta. Open handles are
 * cached, one connection per KB, and closed by {@link close} or {@link delete}.
 */
export class KbRegistry {
  readonly #root: string;
  readonly #busyTimeoutMs: number;
  readonly #open = new Map<string, KnowledgeBase>();

  constructor(options: KbRegistryOptions) {
    this.#root = join(options.dataDir, 'kbs');
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  }

  /** Every KB, by name; one that cannot be read is listed with its `problem`. */
  list(): KbEntry[] {
    if (!existsSync(this.#root)) return [];
    const entries: KbEntry[] = [];
    for (const dir of readdirSync(this.#root, { withFileTypes: true })) {
      const file = join(this.#root, dir.name, 'kb.sqlite');
      if (!dir.isDirectory() || !existsSync(file)) continue;
      const cached = this.#open.get(dir.name);
      try {
        const meta = cached && !cached.closed ? cached.metadata.meta() : KnowledgeBase.readMeta(file);
        const problem =
          meta.schemaVersion > LATEST_SCHEMA_VERSION
            ? `written by a newer Polyhop (schema v${meta.schemaVersion}); update Polyhop to open it`
            : null;
        entries.push({ ...meta, id: dir.name, file, problem });
      } catch (error) {
        const problem = error instanceof Error ? error.message : String(error);
        entries.push({
          name: dir.name,
          description: '',
          baseIri: '',
          createdAt: '',
          schemaVersion: 0,
          embedder: null,
          id: dir.name,
          file,
          problem,
        });
      }
    }
    return entries.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Creates and opens a KB. ALREADY_EXISTS for a duplicate name, BAD_INPUT for an invalid name or base IRI. */
  create(options: CreateKbOptions): KnowledgeBase {
    const name = checkName(options.name);
    if (this.#find(name))
      throw new PolyhopError('ALREADY_EXISTS', `A knowledge base named "${name}" already exists`, {
        details: { name },
      });
    const id = `${slug(name)}-${randomBytes(4).toString('hex')}`;
    const baseIri = checkBaseIri(options.baseIri ?? `urn:polyhop:kb:${id}/`);
    const dir = join(this.#root, id);
    mkdirSync(dir, { recursive: true });
    try {
      const kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
        create: { name, description: options.description ?? '', baseIri },
        busyTimeoutMs: this.#busyTimeoutMs,
      });
      this.#open.set(id, kb);
      return kb;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The (cached) open KB named `name`; NOT_FOUND when there is none. */
  open(name: string): KnowledgeBase {
    const entry = this.get(name);
    const cached = this.#open.get(entry.id);
    if (cached && !cached.closed) return cached;
    const kb = KnowledgeBase.open(entry.file, { busyTimeoutMs: this.#busyTimeoutMs });
    this.#open.set(entry.id, kb);
    return kb;
  }

  /** The entry of `name` (case-insensitive); NOT_FOUND when missing. */
  get(name: string): KbEntry {
    const entry = this.#find(name);
    if (!entry) throw new PolyhopError('NOT_FOUND', `No knowledge base named "${name}"`, { details: { name } });
    return entry;
  }

  /** Renames a KB (its id, directory and base IRI stay). ALREADY_EXISTS when `newName` is taken. */
  rename(name: string, newName: string): KbEntry {
    const entry = this.get(name);
    const clean = checkName(newName);
    const taken = this.#find(clean);
    if (taken && taken.id !== entry.id)
      throw new PolyhopError('ALREADY_EXISTS', `A knowledge base named "${clean}" already exists`, {
        details: { name: clean },
      });
    this.open(entry.name).metadata.setMeta({ name: clean });
    return this.get(clean);
  }

  /**
   * Makes a verified backup file a KB named `name`. With `replace`, an existing KB of that name is
   * deleted only after the restored copy opened; otherwise the name must be free.
   */
  restore(file: string, name: string, options: { replace?: boolean } = {}): KnowledgeBase {
    const clean = checkName(name);
    const existing = this.#find(clean);
    if (existing && !options.replace)
      throw new PolyhopError('ALREADY_EXISTS', `A knowledge base named "${clean}" already exists`, {
        details: { name: clean },
      });
    KnowledgeBase.verifyFile(file);
    const id = `${slug(clean)}-${randomBytes(4).toString('hex')}`;
    const dir = join(this.#root, id);
    mkdirSync(dir, { recursive: true });
    try {
      copyFileSync(file, join(dir, 'kb.sqlite'));
      const kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), { busyTimeoutMs: this.#busyTimeoutMs });
      if (existing) this.delete(existing.name);
      kb.metadata.setMeta({ name: clean });
      this.#open.set(id, kb);
      return kb;
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Closes the KB and deletes its directory. NOT_FOUND when missing. */
  delete(name: string): void {
    const entry = this.get(name);
    this.#open.get(entry.id)?.close();
    this.#open.delete(entry.id);
    rmSync(join(this.#root, entry.id), { recursive: true, force: true });
  }

  /** Closes every open handle. */
  close(): void {
    for (const kb of this.#open.values()) kb.close();
    this.#open.clear();
  }

  #find(name: string): KbEntry | undefined {
    const key = entityKey(name);
    return this.list().find((e) => entityKey(e.name) === key);
  }
}

function checkName(name: string): string {
  const clean = name.trim();
  if (!isKbName(clean)) {
    throw new PolyhopError(
      'BAD_INPUT',
      `"${name.slice(0, 100)}" is not a valid knowledge base name: use ${KB_NAME_RULE}`,
      {
        details: { name },
      },
    );
  }
  return clean;
}

/** A readable, filesystem- and IRI-safe prefix for the id ('kb' when the name has no ASCII letters). */
function slug(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 32)
    .replace(/-+$/g, '');
  return ascii || 'kb';
}
