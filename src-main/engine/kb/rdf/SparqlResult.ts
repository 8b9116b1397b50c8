export interface SparqlResult {
  kind: 'select' | 'ask' | 'graph' | 'update';
  columns: string[];
  rows: Record<string, string | null>[];
  boolean?: boolean;
  /** CONSTRUCT/DESCRIBE results, as Turtle. */
  turtle?: string;
  truncated: boolean;
  elapsedMs: number;
}
