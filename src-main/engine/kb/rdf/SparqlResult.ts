export interface SparqlResult {
  kind: 'select' | 'ask' | 'graph' | 'update';
  columns: string[];
  rows: Record<string, string | null>[];
  boolean?: boolean;
  /** CONSTRUCT/DESCRIBE results, as Turtle. */
  turtle?: string;
  /** Fewer rows or triples than the query has: the row cap, or the store's own limit (see `storeMaxRows`). */
  truncated: boolean;
  /**
   * An external store cut a response at this many rows (Virtuoso's `X-SPARQL-MaxRows`, its
   * `ResultSetMaxRows`). The rows were fetched in pages of that size where the query allowed it;
   * `truncated` says whether the answer is still short.
   */
  storeMaxRows?: number;
  elapsedMs: number;
}
