import type { RepositoryContext } from './RepositoryContext.js';

/** An imported graph's original statements (N-Quads text, batch by batch), kept for export and the RDF view. */
export class ImportedStatementsRepository {
  readonly #context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.#context = context;
  }

  /** Keeps a batch of an imported graph's original statements (N-Quads text) for export and the RDF view. */
  addImportedStatements(source: string, nquads: string): void {
    if (nquads.length > 0)
      this.#context.statements
        .get('INSERT INTO imported_statements (source, nquads) VALUES (?, ?)')
        .run(source, nquads);
  }

  /** @internal Deletes every imported statement, in the caller's transaction (KnowledgeBase.clearGraph). */
  clear(): void {
    this.#context.statements.get('DELETE FROM imported_statements').run();
  }

  /** The imported statements, batch by batch, in import order. */
  *iterateImportedStatements(): Generator<string> {
    let after = 0;
    for (;;) {
      const rows = this.#context.statements
        .get('SELECT id, nquads FROM imported_statements WHERE id > ? ORDER BY id LIMIT 64')
        .all(after) as { id: number; nquads: string }[];
      if (rows.length === 0) return;
      for (const row of rows) yield row.nquads;
      after = (rows.at(-1) as { id: number }).id;
    }
  }
}
