import type { KnowledgeBase } from '../KnowledgeBase.js';
import type { RdfRecordSource } from './RdfRecordSource.js';

/** The RDF view's and exporter's reading of a KnowledgeBase (the system of record). */
export function knowledgeBaseRdfSource(kb: KnowledgeBase): RdfRecordSource {
  return {
    baseIri: kb.metadata.meta().baseIri,
    documents: (ids) =>
      ids ? ids.flatMap((id) => kb.documents.getDocument(id) ?? []) : kb.documents.iterateDocuments(),
    chunksOfDocument: (documentId) => kb.documents.iterateChunks({ documentId }),
    entities: (ids) => (ids ? kb.graph.getEntities(ids) : kb.graph.iterateEntities()),
    triples: (filter) =>
      kb.graph.iterateTriples(filter?.documentId === undefined ? {} : { documentId: filter.documentId }),
    triplesById: (ids) => kb.graph.getTriples(ids),
    triplesOfEntity: (entityId) => kb.graph.triplesOfEntity(entityId, 'both', Number.MAX_SAFE_INTEGER),
    chunkDocuments: (chunkIds) => new Map(kb.documents.getChunks(chunkIds).map((c) => [c.id, c.documentId])),
    importedNQuads: () => kb.importedStatements.iterateImportedStatements(),
    answerGraphs: (historyIds) => kb.answers.iterateGraphs(historyIds),
    recordCounts: () => kb.stats(),
  };
}
