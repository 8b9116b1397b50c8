import type { AnswerGraphRecord } from '../AnswerGraphRepository.js';
import type { ChunkRecord, DocumentRecord, EntityRecord, TripleRecord } from '../types.js';

export interface RecordCounts {
  documents: number;
  chunks: number;
  entities: number;
  triples: number;
}

export type AnyIterable<T> = Iterable<T> | AsyncIterable<T>;
export type Awaitable<T> = T | Promise<T>;

/**
 * What the RDF view, the exporter and the incremental updates read: the KB's records, as the system
 * of record (SQLite) holds them. {@link knowledgeBaseRdfSource} adapts a KnowledgeBase;
 * {@link MemoryRdfSource} serves tests and benchmarks.
 */
export interface RdfRecordSource {
  /** Absolute IRI ending in '/' or '#' under which node IRIs are minted. */
  readonly baseIri: string;
  /** All documents, or those with the given ids (unknown ids skipped). */
  documents(ids?: readonly number[]): AnyIterable<DocumentRecord>;
  /** Chunks of one document (any order; the builder sorts by `ord`). */
  chunksOfDocument(documentId: number): AnyIterable<ChunkRecord>;
  /** All entities, or those with the given ids (unknown ids skipped). */
  entities(ids?: readonly number[]): AnyIterable<EntityRecord>;
  /** All triples, or those with provenance in one document's chunks. */
  triples(options?: { documentId?: number }): AnyIterable<TripleRecord>;
  triplesById(ids: readonly number[]): Awaitable<TripleRecord[]>;
  /** Triples where the entity is source or target. */
  triplesOfEntity(entityId: number): Awaitable<TripleRecord[]>;
  /** The document of each known chunk id. */
  chunkDocuments(chunkIds: readonly number[]): Awaitable<Map<number, number>>;
  /** Original statements of an imported RDF graph, as N-Quads text batches; kept verbatim in exports. */
  importedNQuads?(): AnyIterable<string>;
  /** Stored answer graphs (all, or those of the given history ids), each in its own named graph. */
  answerGraphs?(historyIds?: readonly number[]): AnyIterable<AnswerGraphRecord>;
  /** How many records there are, for the view's size limit (see RdfViewOptions.maxQuads). */
  recordCounts(): Awaitable<RecordCounts>;
}
