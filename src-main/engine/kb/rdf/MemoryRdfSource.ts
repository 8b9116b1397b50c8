import type { ChunkRecord, DocumentRecord, EntityRecord, TripleRecord } from '../types.js';
import type { RdfRecordSource, RecordCounts } from './RdfRecordSource.js';

/**
 * Records held in arrays: the source of tests, benchmarks and import previews. Mutate the public
 * arrays to simulate the database changing under a view.
 */
export class MemoryRdfSource implements RdfRecordSource {
  readonly baseIri: string;
  documentList: DocumentRecord[] = [];
  chunkList: ChunkRecord[] = [];
  entityList: EntityRecord[] = [];
  tripleList: TripleRecord[] = [];
  nquads: string[] = [];

  constructor(baseIri: string) {
    this.baseIri = baseIri;
  }

  recordCounts(): RecordCounts {
    return {
      documents: this.documentList.length,
      chunks: this.chunkList.length,
      entities: this.entityList.length,
      triples: this.tripleList.length,
    };
  }

  documents(ids?: readonly number[]): DocumentRecord[] {
    return ids ? this.documentList.filter((d) => ids.includes(d.id)) : this.documentList;
  }
  chunksOfDocument(documentId: number): ChunkRecord[] {
    return this.chunkList.filter((c) => c.documentId === documentId);
  }
  entities(ids?: readonly number[]): EntityRecord[] {
    if (!ids) return this.entityList;
    const wanted = new Set(ids);
    return this.entityList.filter((e) => wanted.has(e.id));
  }
  triples(filter: { documentId?: number } = {}): TripleRecord[] {
    if (filter.documentId === undefined) return this.tripleList;
    const chunks = new Set(this.chunksOfDocument(filter.documentId).map((c) => c.id));
    return this.tripleList.filter((t) => t.chunkIds.some((id) => chunks.has(id)));
  }
  triplesById(ids: readonly number[]): TripleRecord[] {
    const wanted = new Set(ids);
    return this.tripleList.filter((t) => wanted.has(t.id));
  }
  triplesOfEntity(entityId: number): TripleRecord[] {
    return this.tripleList.filter((t) => t.sourceId === entityId || t.targetId === entityId);
  }
  chunkDocuments(chunkIds: readonly number[]): Map<number, number> {
    const wanted = new Set(chunkIds);
    return new Map(this.chunkList.filter((c) => wanted.has(c.id)).map((c) => [c.id, c.documentId]));
  }
  importedNQuads(): string[] {
    return this.nquads;
  }
}
