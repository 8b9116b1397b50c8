import type { StatementCache } from './StatementCache.js';

export interface IterateOptions {
  /** Only rows belonging to this document (chunks, or triples with provenance in its chunks). Default: all. */
  documentId?: number;
  /** Rows fetched per round trip. Default: 1000. */
  batchSize?: number;
}

/** Rows in the order of `ids`; ids without a row are skipped. */
export function inOrder<R extends { id: number }>(ids: readonly number[], rows: R[]): R[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Every row of `sql` (which takes `:after` and `:limit` and orders by id), a page per round trip.
 * Keyset pages rather than Statement#iterate: an open iterator would lock the connection against
 * every other call until the consumer finishes.
 */
export function* paged<R extends { id: number }>(
  statements: StatementCache,
  sql: string,
  params: Record<string, unknown>,
  batchSize = 1000,
): Generator<R> {
  let after = 0;
  for (;;) {
    const rows = statements.get(sql).all({ ...params, after, limit: batchSize }) as R[];
    yield* rows;
    if (rows.length < batchSize) return;
    after = (rows[rows.length - 1] as R).id;
  }
}
