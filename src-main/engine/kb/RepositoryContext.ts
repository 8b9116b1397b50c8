import type { Database as Db } from 'better-sqlite3';
import type { PolyhopError } from '../base/errors.js';
import type { StatementCache } from './utils/StatementCache.js';

/**
 * What every repository gets from the KnowledgeBase facade, which owns the connection, the
 * transaction boundaries and the cache of derived aggregates. Repositories hold no connection of
 * their own: all of them write through this one.
 */
export interface RepositoryContext {
  /** The KB's file, for messages. */
  readonly file: string;
  readonly db: Db;
  readonly statements: StatementCache;
  /** The facade's transaction (a savepoint when nested); all or nothing. */
  transaction<T>(fn: () => T): T;
  /** Marks this connection's content as changed (drops derived aggregates). */
  touch(): void;
  /** `compute()`'s value, kept until the content changes here or another connection commits. */
  derive<T>(name: string, compute: () => T): T;
  exists(table: string, id: number): boolean;
  /** NOT_FOUND naming the KB. */
  notFound(what: string, id: number): PolyhopError;
  /** The KB's name, for messages. */
  name(): string;
}
