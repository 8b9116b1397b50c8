import { throwIfAborted } from '../../base/abort.js';
import { isCancellation } from '../../base/errors.js';
import { buildQuads } from '../rdf/buildQuads.js';
import { KbQuads } from '../rdf/KbQuads.js';
import type { RdfRecordSource } from '../rdf/RdfRecordSource.js';
import { estimateQuads } from '../rdf/RdfView.js';
import { RdfSerializer } from '../rdf/RdfSerializer.js';
import {
  deleteDocument,
  deleteEntities,
  deleteOrphanRelationships,
  deleteStaleDocumentRelationships,
  entityIdsOfDocumentsQuery,
  updateRequest,
} from '../rdf/rdfUpdates.js';
import { KbIris, type RdfQuad } from '../rdf/terms.js';
import type { TripleRecord } from '../types.js';
import { type GraphOwner, claimGraph } from './graphOwner.js';
import { selectAll } from './pagedSelect.js';
import type { SparqlStoreClient } from './SparqlStoreClient.js';
import { syncAnswers } from './syncAnswers.js';
import type { StoreJournal } from './StoreJournal.js';

export interface StoreSyncProgress {
  stage: 'publish' | 'documents' | 'entities' | 'tidy';
  done: number;
  total: number;
  /** Quads sent so far in this run. */
  quads: number;
}

export interface StoreSyncOptions {
  /** Where the copy goes (StoreConfig storeTarget): recorded with a completed publish. */
  target: string;
  /** Quads per Graph Store request. Default: 50,000. */
  batchQuads?: number;
  /** Documents (or entities) whose old statements one update request deletes. Default: 50 (entities: 200). */
  recordsPerUpdate?: number;
  /** The KB writing: recorded as the graph's owner, and a graph another KB owns is refused (see claimGraph). */
  owner?: GraphOwner;
  /** Write into a graph another KB owns, and own it from now on. Default: false. */
  takeOver?: boolean;
  onProgress?: (progress: StoreSyncProgress) => void;
  signal?: AbortSignal;
}

export interface StoreSyncResult {
  /** 'full': the whole graph was replaced; 'incremental': only the journal's records were re-sent. */
  mode: 'full' | 'incremental';
  quads: number;
  documents: number;
  entities: number;
  /** Answer graphs sent or dropped (syncAnswers.ts). */
  answers: number;
}

/**
 * Brings the store's copy of a KB up to date: a full publish when one is due (see
 * StoreSyncState.fullNeeded), else the journal's changes; then the answer graphs, each in its
 * own named graph (syncAnswers.ts: all of them after a full publish). Either way a failure (the store gone,
 * a cancel) leaves the journal holding what was not confirmed and the error recorded, and the next
 * call picks up from there: every step deletes what it is about to write, so repeating one is
 * harmless.
 */
export async function syncStore(
  source: RdfRecordSource,
  client: SparqlStoreClient,
  journal: StoreJournal,
  options: StoreSyncOptions,
): Promise<StoreSyncResult> {
  try {
    const before = journal.state();
    if (options.owner)
      await claimGraph(
        client,
        options.owner,
        {
          takeOver: options.takeOver ?? false,
          publishedHereBefore: before.publishedAt !== null && before.target === options.target,
        },
        options.signal ? { signal: options.signal } : {},
      );
    // Another KB's statements may be in the graph: taking it over replaces them all.
    if (options.takeOver) journal.requestFull();
    const state = journal.state();
    const result =
      state.fullNeeded || state.target !== options.target
        ? await publishAll(source, client, journal, options)
        : await syncChanges(source, client, journal, options);
    const answers = await syncAnswers(source, client, {
      full: result.mode === 'full',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { ...result, answers: answers.sent + answers.dropped };
  } catch (error) {
    journal.setError(
      isCancellation(error) ? 'cancelled before it completed' : error instanceof Error ? error.message : String(error),
    );
    throw error;
  }
}

/** Replaces the store's graph with all of the KB's quads (GSP PUT for the first batch, POST for the rest). */
async function publishAll(
  source: RdfRecordSource,
  client: SparqlStoreClient,
  journal: StoreJournal,
  options: StoreSyncOptions,
): Promise<StoreSyncResult> {
  journal.requestFull();
  const upTo = journal.watermark();
  const total = estimateQuads(await source.recordCounts());
  const serializer = new RdfSerializer('ntriples');
  const requestOptions = options.signal ? { signal: options.signal } : {};
  let sent = 0;
  let first = true;
  // Build the next batch's text while the store takes this one.
  let inFlight: { request: Promise<void>; quads: number } | null = null;
  const settle = async (): Promise<void> => {
    if (!inFlight) return;
    const { request, quads } = inFlight;
    inFlight = null;
    await request;
    sent += quads;
    options.onProgress?.({ stage: 'publish', done: sent, total: Math.max(total, sent), quads: sent });
  };
  try {
    for await (const batch of buildQuads(
      source,
      { kind: 'all' },
      { batchSize: options.batchQuads ?? 50_000, ...(options.signal ? { signal: options.signal } : {}) },
    )) {
      const text = serializer.write(batch);
      await settle();
      const request = first ? client.replaceGraph(text, requestOptions) : client.addToGraph(text, requestOptions);
      request.catch(() => undefined);
      inFlight = { request, quads: batch.length };
      first = false;
    }
    await settle();
  } catch (error) {
    await (inFlight as { request: Promise<void> } | null)?.request.catch(() => undefined);
    throw error;
  }
  if (first) await client.replaceGraph('', requestOptions);
  journal.markPublished(options.target, upTo);
  options.onProgress?.({ stage: 'publish', done: sent, total: sent, quads: sent });
  return { mode: 'full', quads: sent, documents: 0, entities: 0, answers: 0 };
}

/**
 * Re-sends what changed: each noted document (its chunks; the entities it linked to, before and
 * after, are noted in turn), then each noted entity with all its triples, then the shared
 * relationship links that no triple backs any more.
 */
async function syncChanges(
  source: RdfRecordSource,
  client: SparqlStoreClient,
  journal: StoreJournal,
  options: StoreSyncOptions,
): Promise<StoreSyncResult> {
  const graph = client.graphIri;
  const iris = new KbIris(source.baseIri);
  const requestOptions = options.signal ? { signal: options.signal } : {};
  const serializer = new RdfSerializer('ntriples');
  const batchQuads = options.batchQuads ?? 50_000;
  let quads = 0;
  const send = async (all: readonly RdfQuad[]): Promise<void> => {
    for (let i = 0; i < all.length; i += batchQuads) {
      throwIfAborted(options.signal);
      await client.addToGraph(serializer.write(all.slice(i, i + batchQuads)), requestOptions);
    }
    quads += all.length;
  };
  const hadError = journal.state().lastError !== null;

  const docsUpTo = journal.watermark();
  const documents = journal.pending('document', docsUpTo);
  const docStep = options.recordsPerUpdate ?? 50;
  for (let i = 0; i < documents.length; i += docStep) {
    throwIfAborted(options.signal);
    const ids = documents.slice(i, i + docStep);
    const linked = new Set<number>();
    const linkedQuery = entityIdsOfDocumentsQuery(
      ids.map((id) => iris.document(id).value),
      graph,
    );
    // An entity left off would stay unsent.
    const before = await selectAll(
      client,
      linkedQuery,
      requestOptions,
      'the entities its copy links to these documents',
    );
    for (const row of before) linked.add(Number(row.id));
    for (const id of ids)
      for await (const t of source.triples({ documentId: id })) linked.add(t.sourceId).add(t.targetId);
    // The entities come next from the journal, so they are noted before the documents are let go.
    journal.note('entity', [...linked]);
    await client.update(
      updateRequest(
        ids.flatMap((id) => deleteDocument(iris.document(id).value)),
        graph,
      ),
      requestOptions,
    );
    const kq = new KbQuads(iris);
    const out: RdfQuad[] = [];
    for await (const doc of source.documents(ids)) {
      out.push(...kq.document(doc));
      const chunks = [];
      for await (const chunk of source.chunksOfDocument(doc.id)) chunks.push(chunk);
      out.push(...kq.chunks(doc.id, chunks));
    }
    await send(out);
    journal.acknowledge('document', ids, docsUpTo);
    options.onProgress?.({
      stage: 'documents',
      done: Math.min(i + docStep, documents.length),
      total: documents.length,
      quads,
    });
  }

  const entitiesUpTo = journal.watermark();
  const entities = journal.pending('entity', entitiesUpTo);
  const entityStep = (options.recordsPerUpdate ?? 50) * 4;
  for (let i = 0; i < entities.length; i += entityStep) {
    throwIfAborted(options.signal);
    const ids = entities.slice(i, i + entityStep);
    await client.update(updateRequest(deleteEntities(ids), graph), requestOptions);
    const kq = new KbQuads(iris);
    const out: RdfQuad[] = [];
    const triples = new Map<number, TripleRecord>();
    for await (const entity of source.entities(ids)) {
      out.push(...kq.entity(entity));
      for (const t of await source.triplesOfEntity(entity.id)) triples.set(t.id, t);
    }
    const chunkDocs = await source.chunkDocuments([...new Set([...triples.values()].flatMap((t) => t.chunkIds))]);
    for (const t of triples.values()) out.push(...kq.triple(t, chunkDocs));
    await send(out);
    journal.acknowledge('entity', ids, entitiesUpTo);
    options.onProgress?.({
      stage: 'entities',
      done: Math.min(i + entityStep, entities.length),
      total: entities.length,
      quads,
    });
  }

  // Also after a sync that failed: it may have stopped between the entities and this step.
  if (documents.length + entities.length > 0 || hadError) {
    options.onProgress?.({ stage: 'tidy', done: 0, total: 1, quads });
    await client.update(
      updateRequest([...deleteOrphanRelationships(), ...deleteStaleDocumentRelationships()], graph),
      requestOptions,
    );
    options.onProgress?.({ stage: 'tidy', done: 1, total: 1, quads });
  }
  journal.markSynced();
  return { mode: 'incremental', quads, documents: documents.length, entities: entities.length, answers: 0 };
}
