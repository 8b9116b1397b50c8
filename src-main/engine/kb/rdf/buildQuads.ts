import { parse } from 'oxigraph';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import type { TripleRecord } from '../types.js';
import { answerGraphQuads } from './answerGraphQuads.js';
import { KbQuads } from './KbQuads.js';
import type { RdfRecordSource } from './RdfRecordSource.js';
import { KbIris, type RdfQuad, fromOxigraph } from './terms.js';

/** Which part of a KB an export (or the view) covers. */
export type RdfScope =
  | { kind: 'all' }
  /** Only the statements an RDF import brought, as they were (none for a KB built from documents). */
  | { kind: 'original' }
  /** The document, its chunks, and the triples (with their entities) read from its chunks. */
  | { kind: 'document'; documentId: number }
  /** The entity, the entities up to `hops` triples away, and the triples between them. */
  | { kind: 'entity'; entityId: number; hops: number };

export interface BuildQuadsOptions {
  /** Quads per yielded batch. Default: 5000. */
  batchSize?: number;
  /**
   * Add every stored answer graph (named graphs, after the scope's quads; Turtle and N-Triples
   * merge them into the default graph). The RDF view always holds them. Default: false.
   */
  answers?: boolean;
  /** Entity scope: stop widening the neighbourhood past this many triples. Default: 100_000. */
  maxNeighbourhoodTriples?: number;
  signal?: AbortSignal;
}

/**
 * Streams the quads of `scope`, in batches, straight from the records: the view does not need to be
 * loaded, and memory stays at one batch plus the set of shared facts already written.
 */
export async function* buildQuads(
  source: RdfRecordSource,
  scope: RdfScope,
  options: BuildQuadsOptions = {},
): AsyncGenerator<RdfQuad[]> {
  const batchSize = options.batchSize ?? 5000;
  const iris = new KbIris(source.baseIri);
  const kq = new KbQuads(iris);
  let batch: RdfQuad[] = [];
  const push = function* (quads: readonly RdfQuad[]): Generator<RdfQuad[]> {
    for (const q of quads) batch.push(q);
    if (batch.length >= batchSize) {
      throwIfAborted(options.signal);
      yield batch;
      batch = [];
    }
  };

  async function* imported(): AsyncGenerator<RdfQuad[]> {
    if (!source.importedNQuads) return;
    for await (const text of source.importedNQuads())
      yield* push(parse(text, { format: 'application/n-quads' }).map(fromOxigraph));
  }

  switch (scope.kind) {
    case 'all': {
      const chunkDocuments = new Map<number, number>();
      for await (const doc of source.documents()) {
        yield* push(kq.document(doc));
        const chunks = [];
        for await (const chunk of source.chunksOfDocument(doc.id)) {
          chunks.push(chunk);
          chunkDocuments.set(chunk.id, doc.id);
        }
        yield* push(kq.chunks(doc.id, chunks));
      }
      for await (const entity of source.entities()) yield* push(kq.entity(entity));
      for await (const triple of source.triples()) yield* push(kq.triple(triple, chunkDocuments));
      yield* imported();
      break;
    }
    case 'original':
      yield* imported();
      break;
    case 'document': {
      const doc = await findDocument(source, scope.documentId);
      yield* push(kq.document(doc));
      const chunkDocuments = new Map<number, number>();
      const chunks = [];
      for await (const chunk of source.chunksOfDocument(doc.id)) {
        chunks.push(chunk);
        chunkDocuments.set(chunk.id, doc.id);
      }
      yield* push(kq.chunks(doc.id, chunks));
      const entityIds = new Set<number>();
      for await (const triple of source.triples({ documentId: doc.id })) {
        entityIds.add(triple.sourceId).add(triple.targetId);
        yield* push(kq.triple(triple, chunkDocuments, (id) => chunkDocuments.has(id)));
      }
      for await (const entity of source.entities([...entityIds])) yield* push(kq.entity(entity));
      break;
    }
    case 'entity': {
      const { entityIds, triples } = await neighbourhood(
        source,
        scope.entityId,
        scope.hops,
        options.maxNeighbourhoodTriples ?? 100_000,
        options.signal,
      );
      for await (const entity of source.entities([...entityIds])) yield* push(kq.entity(entity));
      for (const triple of triples) yield* push(kq.triple(triple, new Map()));
      break;
    }
  }
  if (options.answers && source.answerGraphs)
    for await (const record of source.answerGraphs()) yield* push(answerGraphQuads(record, iris));
  if (batch.length > 0) yield batch;
}

async function findDocument(source: RdfRecordSource, documentId: number) {
  for await (const doc of source.documents([documentId])) return doc;
  throw new PolyhopError('NOT_FOUND', `rdf export: no document ${documentId}`, { details: { documentId } });
}

/** Breadth-first over triples in both directions; `entityIds` includes the start. */
export async function neighbourhood(
  source: RdfRecordSource,
  entityId: number,
  hops: number,
  maxTriples: number,
  signal?: AbortSignal,
): Promise<{ entityIds: Set<number>; triples: TripleRecord[] }> {
  const start = [...(await collect(source.entities([entityId])))];
  if (start.length === 0)
    throw new PolyhopError('NOT_FOUND', `rdf export: no entity ${entityId}`, { details: { entityId } });
  const entityIds = new Set([entityId]);
  const triples = new Map<number, TripleRecord>();
  let frontier = [entityId];
  for (let hop = 0; hop < hops && frontier.length > 0 && triples.size < maxTriples; hop++) {
    const next: number[] = [];
    for (const id of frontier) {
      throwIfAborted(signal);
      for (const t of await source.triplesOfEntity(id)) {
        if (triples.size >= maxTriples) break;
        triples.set(t.id, t);
        for (const other of [t.sourceId, t.targetId]) {
          if (!entityIds.has(other)) {
            entityIds.add(other);
            next.push(other);
          }
        }
      }
    }
    frontier = next;
  }
  return { entityIds, triples: [...triples.values()] };
}

async function collect<T>(items: Iterable<T> | AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
