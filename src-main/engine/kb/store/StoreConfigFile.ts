import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { PolyhopError } from '../../base/errors.js';
import { type StoreConfig, storeConfigSchema } from './StoreConfig.js';

const fileSchema = z.record(z.string(), storeConfigSchema);

/**
 * The external stores, one per KB id, in `<dataDir>/stores.json` (owner-only: it holds the
 * stores' passwords). Kept apart from the KB file, so a backup or a copy of a KB carries no
 * credentials and a restored KB sends nothing anywhere until the user configures a store.
 */
export class StoreConfigFile {
  readonly #file: string;
  #configs: Record<string, StoreConfig>;

  constructor(file: string) {
    this.#file = file;
    this.#configs = this.#read();
  }

  get(kbId: string): StoreConfig | null {
    const config = this.#configs[kbId];
    return config ? structuredClone(config) : null;
  }

  /** Every URL a configured store is reached at (the network allow-list names their hosts). */
  urls(): string[] {
    return Object.values(this.#configs).flatMap((c) => [c.queryUrl, c.updateUrl, c.graphStoreUrl]);
  }

  set(kbId: string, config: StoreConfig): void {
    this.#write({ ...this.#configs, [kbId]: storeConfigSchema.parse(config) });
  }

  remove(kbId: string): boolean {
    if (!(kbId in this.#configs)) return false;
    const { [kbId]: _removed, ...rest } = this.#configs;
    this.#write(rest);
    return true;
  }

  #write(configs: Record<string, StoreConfig>): void {
    mkdirSync(dirname(this.#file), { recursive: true });
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(configs, null, 2), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.#file);
    this.#configs = configs;
  }

  #read(): Record<string, StoreConfig> {
    let text: string;
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      return {};
    }
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      // Guessing at a damaged file could send a KB to the wrong place: refuse and say where.
      throw new PolyhopError(
        'BAD_INPUT',
        `${this.#file}: not a valid store configuration (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); fix or remove it`,
        {
          details: { file: this.#file },
        },
      );
    }
    return parsed.data;
  }
}
