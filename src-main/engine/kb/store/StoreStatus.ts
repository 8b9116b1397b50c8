/** Where a KB's copy in its store stands. */
export interface StoreSyncView {
  /** The next sync replaces the whole graph (never published, another store or graph, an RDF import, or asked for). */
  fullNeeded: boolean;
  publishedAt: string | null;
  syncedAt: string | null;
  /** Why the last publish or sync stopped; the next one resumes from there. */
  lastError: string | null;
  /** Documents and entities changed since the store last had them (0 while a full publish is due). */
  pendingDocuments: number;
  pendingEntities: number;
}

/** A KB's external SPARQL store as the Api shows it: never the password, only whether there is one. */
export interface StoreStatus {
  kb: string;
  config: {
    queryUrl: string;
    updateUrl: string;
    graphStoreUrl: string;
    graphIri: string;
    auth: { kind: 'none' | 'basic' | 'digest'; username?: string; hasPassword: boolean };
    batchQuads: number;
    requestTimeoutMs: number;
    autoSync: boolean;
  } | null;
  sync: StoreSyncView | null;
  /** The publish or sync job running now. */
  jobId: string | null;
  /** With `probe`: statements in the store's graph, or why it could not be asked. */
  storeQuads?: number;
  probeError?: string;
  /** With `probe`: the KB recorded as owning the graph (see graphOwner), if any; `thisKb` when it is this one. */
  graphOwner?: { id: string; name: string; thisKb: boolean };
  /** With `probe`: whether the update endpoint took an authenticated no-op (`INSERT DATA {}`), i.e. the credentials work for writing. */
  updateProbe?: { ok: boolean; error?: string };
}
