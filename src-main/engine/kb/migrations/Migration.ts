import type { Database } from 'better-sqlite3';

/** One schema step. `up` runs inside a transaction with `user_version` set to `version` on success. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
