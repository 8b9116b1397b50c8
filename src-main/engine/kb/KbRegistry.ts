import { KnowledgeBase } from './KnowledgeBase.js';
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
 * The KBs of one data directory, by name. Open handles are cached (one writer connection per KB)
 * and closed by {@link close}, {@link delete} or {@link rename} as needed.
 */
export class KbRegistry {
  constructor(options: KbRegistryOptions) {
    void options;
    throw new Error('KbRegistry: not implemented yet');
  }
  list(): KbEntry[] {
    throw new Error('not implemented yet');
  }
  /** ALREADY_EXISTS for a duplicate name, BAD_INPUT for an invalid name or base IRI. */
  create(options: CreateKbOptions): KnowledgeBase {
    throw new Error(`not implemented yet ${String(options)}`);
  }
  /** The cached handle of the KB named `name`; NOT_FOUND when there is none. */
  open(name: string): KnowledgeBase {
    throw new Error(`not implemented yet ${name}`);
  }
  /** The entry of `name` (NOT_FOUND when missing). */
  get(name: string): KbEntry {
    throw new Error(`not implemented yet ${name}`);
  }
  rename(name: string, newName: string): KbEntry {
    throw new Error(`not implemented yet ${name}${newName}`);
  }
  /** Closes and deletes the KB's directory. */
  delete(name: string): void {
    throw new Error(`not implemented yet ${name}`);
  }
  close(): void {}
}
