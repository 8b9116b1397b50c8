import { PolyhopError } from '../base/errors.js';
import { cleanName } from './entityKey.js';
import { KB_FORMAT, metaFrom, notAKb } from './KbFile.js';
import { schemaVersion } from './migrations/migrate.js';
import type { RepositoryContext } from './RepositoryContext.js';
import type { KbMeta } from './types.js';

/** The KB's meta (name, description, base IRI, format marker, embedder record) and its settings (JSON by key). */
export class MetaRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /**
   * Gives a new KB its meta (`create`), or checks that an existing one is a Polyhop KB: BAD_INPUT
   * when the file had a schema (`schemaBefore` > 0) but no meta, or another format marker.
   */
  initialise(schemaBefore: number, create: { name: string; description?: string; baseIri: string } | undefined): void {
    const file = this.#context.file;
    const format = this.value('format');
    if (format === undefined) {
      if (schemaBefore > 0 || !create) throw notAKb(file, 'its meta is missing');
      const { name, description = '', baseIri } = create;
      if (!cleanName(name)) throw new PolyhopError('BAD_INPUT', `${file}: a knowledge base needs a name`);
      this.#context.transaction(() => {
        this.setValue('format', KB_FORMAT);
        this.setValue('name', cleanName(name));
        this.setValue('description', description);
        this.setValue('baseIri', baseIri);
        this.setValue('createdAt', new Date().toISOString());
      });
    } else if (format !== KB_FORMAT) {
      throw notAKb(file, 'its format marker is not polyhop-kb');
    }
  }

  meta(): KbMeta {
    const rows = this.#context.statements.get('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    return metaFrom(new Map(rows.map((r) => [r.key, r.value])), schemaVersion(this.#context.db));
  }

  /** Renames or re-describes the KB (the base IRI is fixed at creation). */
  setMeta(update: { name?: string; description?: string }): void {
    this.#context.transaction(() => {
      if (update.name !== undefined) {
        if (!cleanName(update.name))
          throw new PolyhopError('BAD_INPUT', `${this.#context.file}: a knowledge base needs a name`);
        this.setValue('name', cleanName(update.name));
      }
      if (update.description !== undefined) this.setValue('description', update.description);
    });
  }

  /** One meta value as stored (text), or undefined. */
  value(key: string): string | undefined {
    return this.#context.statements.get('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
  }

  setValue(key: string, value: string): void {
    this.#context.statements.get('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }

  getSetting<T = unknown>(key: string): T | undefined {
    const value = this.#context.statements.get('SELECT value FROM settings WHERE key = ?').pluck().get(key) as
      string | undefined;
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  /** Stores a JSON-serialisable value; `undefined` deletes the setting. */
  setSetting(key: string, value: unknown): void {
    if (value === undefined) this.#context.statements.get('DELETE FROM settings WHERE key = ?').run(key);
    else
      this.#context.statements
        .get('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)')
        .run(key, JSON.stringify(value));
  }
}
