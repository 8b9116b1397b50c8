import type { Database, Statement } from 'better-sqlite3';

/** One connection's prepared statements, each SQL text prepared once (preparing costs more than running). */
export class StatementCache {
  readonly #db: Database;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Database) {
    this.#db = db;
  }

  get(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  clear(): void {
    this.#statements.clear();
  }
}
