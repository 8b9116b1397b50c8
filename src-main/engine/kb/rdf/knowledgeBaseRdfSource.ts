import type { KnowledgeBase } from '../KnowledgeBase.js';
import type { RdfRecordSource } from './RdfRecordSource.js';

/** The RDF view's and exporter's reading of a KnowledgeBase (the system of record). */
export function knowledgeBaseRdfSource(kb: KnowledgeBase): RdfRecordSource {
  return {
    baseIri: kb.meta().baseIri,
    documents: (ids) => (ids ? ids.flatMap((id) => kb.getDocument(id) ?? []) : kb.iterateDocuments()),
    chunksOfDocument: (documentId) => kb.iterateChunks({ documentId }),
    entities: (ids) => (ids ? kb.getEntities(ids) : kb.iterateEntities()),
    triples: (filter) => kb.iterateTriples(filter?.documentId === undefined ? {} : { documentId: filter.documentId }),
    triplesById: (ids) => kb.getTriples(ids),
    triplesOfEntity: (entityId) => kb.triplesOfEntity(entityId, 'both', Number.MAX_SAFE_INTEGER),
    chunkDocuments: (chunkIds) => new Map(kb.getChunks(chunkIds).map((c) => [c.id, c.documentId])),
    importedNQuads: () => kb.importedStatements.iterateImportedStatements(),
    answerGraphs: (historyIds) => kb.answers.iterateGraphs(historyIds),
    recordCounts: () => kb.stats(),
  };
}
