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
  /** From an external store whose copy is incomplete or behind the KB (see StoreCopyWarning); absent when current. */
  storeCopy?: StoreCopyWarning;
  elapsedMs: number;
}

/**
 * How far the store's copy of a KB can be trusted, said with every answer from the store:
 * `partial` (the last publish or sync stopped before it completed, so the graph holds only part of
 * what it should), `unpublished` (nothing was ever published there), `stale` (the KB changed since
 * the store last had it). A copy that is current gets none.
 */
export interface StoreCopyWarning {
  state: 'partial' | 'unpublished' | 'stale';
  /** Documents and entities changed since the store last had them (0 while a full publish is due). */
  pendingDocuments: number;
  pendingEntities: number;
  /** Why the last publish or sync stopped (state `partial`). */
  lastError: string | null;
  /** A publish or sync runs now: the copy changes while it is read. */
  syncRunning: boolean;
  /** The same, in a sentence (the CLI prints it on stderr). */
  message: string;
}
