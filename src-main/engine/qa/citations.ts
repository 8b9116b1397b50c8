import type { Citation, Evidence } from './Answer.js';
import type { ChunkRecord } from '../kb/types.js';
import type { EvidenceItem } from './EvidencePool.js';
import type { Retriever } from './retrieval/Retriever.js';
import type { QaKb } from './types.js';

/**
 * Turns evidence into the contract's `Evidence`, each with citations (document, chunk, page,
 * character offsets) for up to `maxCitations` of its provenance chunks, so the UI can open the
 * passage. Evidence from imported RDF has no chunks and so no citations.
 */
export function citeEvidence(
  kb: QaKb,
  retriever: Retriever,
  items: readonly EvidenceItem[],
  maxCitations: number,
): Evidence[] {
  const wanted = new Set<number>();
  for (const item of items) for (const id of item.chunkIds.slice(0, maxCitations)) wanted.add(id);
  const chunks = new Map<number, ChunkRecord>(kb.documents.getChunks([...wanted]).map((c) => [c.id, c]));
  return items.map((item) => ({
    kind: item.kind,
    id: item.id,
    text: item.text,
    label: item.label,
    score: item.score,
    citations: item.chunkIds
      .slice(0, maxCitations)
      .map((id) => chunks.get(id))
      .filter((c): c is ChunkRecord => c !== undefined)
      .map((c): Citation => ({
        documentId: c.documentId,
        documentTitle: retriever.documentTitle(c.documentId),
        chunkId: c.id,
        page: c.page,
        startOffset: c.startOffset,
        endOffset: c.endOffset,
      })),
  }));
}
