import type { Database } from 'better-sqlite3';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import type { RepositoryContext } from '../../src-main/engine/kb/RepositoryContext.js';
import { StatementCache } from '../../src-main/engine/kb/utils/StatementCache.js';

/**
 * A RepositoryContext over a bare connection, without the KnowledgeBase facade: for a repository
 * tested on a database a migration test builds row by row. Transactions are the connection's own;
 * nothing is derived or cached beyond prepared statements.
 */
export function bareRepositoryContext(db: Database, name = 'bare'): RepositoryContext {
  const statements = new StatementCache(db);
  return {
    file: db.name,
    db,
    statements,
    transaction: (fn) => db.transaction(fn)(),
    touch: () => undefined,
    derive: (_name, compute) => compute(),
    exists: (table, id) => statements.get(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined,
    notFound: (what, id) => new PolyhopError('NOT_FOUND', `No ${what} ${id} in knowledge base "${name}"`),
    name: () => name,
  };
}
