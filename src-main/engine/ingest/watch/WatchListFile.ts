import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

const entrySchema = z
  .object({ kbId: z.string().min(1), path: z.string().min(1), ignore: z.array(z.string()).default([]) })
  .strict();
const fileSchema = z.object({ folders: z.array(entrySchema) }).strict();

/** A folder kept in sync with a KB (by the KB's stable id, so a renamed KB keeps its folders). */
export type WatchedFolder = z.output<typeof entrySchema>;

/**
 * The watched folders, in `<dataDir>/watched-folders.json`, written atomically on each change.
 * The list is all that survives a kill: on start, each folder's catch-up scan finds what changed.
 */
export class WatchListFile {
  readonly #file: string;
  #folders: WatchedFolder[];

  constructor(file: string) {
    this.#file = file;
    this.#folders = this.#read();
  }

  list(): WatchedFolder[] {
    return structuredClone(this.#folders);
  }

  /** Adds a folder, or replaces its ignore patterns when it is watched already. */
  set(folder: WatchedFolder): void {
    this.#write([
      ...this.#folders.filter((f) => !(f.kbId === folder.kbId && f.path === folder.path)),
      entrySchema.parse(folder),
    ]);
  }

  /** Forgets a KB's folder (or all its folders); says whether anything went. */
  remove(kbId: string, path?: string): boolean {
    const kept = this.#folders.filter((f) => !(f.kbId === kbId && (path === undefined || f.path === path)));
    if (kept.length === this.#folders.length) return false;
    this.#write(kept);
    return true;
  }

  #write(folders: WatchedFolder[]): void {
    mkdirSync(dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ folders }, null, 2));
    renameSync(tmp, this.#file);
    this.#folders = folders;
  }

  #read(): WatchedFolder[] {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.#file, 'utf8'));
    } catch {
      return [];
    }
    const parsed = fileSchema.safeParse(raw);
    if (parsed.success) return parsed.data.folders;
    // A damaged list loses no document (they stay in their KBs): say so and watch nothing.
    console.error(
      `[polyhop] ${this.#file}: not a valid watch list (${parsed.error.issues[0]?.message}); no folder is watched until it is fixed or re-added`,
    );
    return [];
  }
}
