import type { StoreCopyWarning } from '../rdf/SparqlResult.js';
import type { StoreSyncView } from './StoreStatus.js';

export type { StoreCopyWarning };

/** The warning for a copy in `sync` (the journal's view of it), or null when the store has the KB as it is. */
export function storeCopyWarning(kb: string, sync: StoreSyncView, syncRunning: boolean): StoreCopyWarning | null {
  const state: StoreCopyWarning['state'] | null =
    sync.lastError !== null
      ? 'partial'
      : sync.fullNeeded && sync.publishedAt === null
        ? 'unpublished'
        : sync.fullNeeded || sync.pendingDocuments + sync.pendingEntities > 0
          ? 'stale'
          : null;
  if (state === null && !syncRunning) return null;
  const next = syncRunning
    ? 'a sync is running now'
    : `\`polyhop store ${sync.fullNeeded ? 'publish' : 'sync'} --kb "${kb}"\` brings it up to date`;
  const what: Record<StoreCopyWarning['state'], string> = {
    partial:
      `the store's copy of "${kb}" is incomplete: ` +
      `its last ${sync.fullNeeded ? 'publish' : 'sync'} stopped before it completed (${sync.lastError ?? ''})`,
    unpublished: `"${kb}" was never published completely to this store: its graph may be empty or another's`,
    stale: sync.fullNeeded
      ? `"${kb}" changed since it was published (a full publish is due)`
      : `"${kb}" changed since the store last had it (${sync.pendingDocuments} documents and ${sync.pendingEntities} entities not yet sent)`,
  };
  return {
    state: state ?? 'stale',
    pendingDocuments: sync.pendingDocuments,
    pendingEntities: sync.pendingEntities,
    lastError: sync.lastError,
    syncRunning,
    message: `${state ? what[state] : `a sync of "${kb}" is running`}; the answer may not match the knowledge base; ${next}`,
  };
}
