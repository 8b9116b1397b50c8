import type { SparqlResult } from './SparqlResult.js';
import { raceAbort } from '../../base/abort.js';
import { yieldToEventLoop } from '../../base/concurrency.js';
import { BugIndicatingError, CancelledError, PolyhopError } from '../../base/errors.js';
import { answerGraphQuads } from './answerGraphQuads.js';
import { buildQuads } from './buildQuads.js';
import { graphResultTurtle } from './graphResultTurtle.js';
import { KbQuads } from './KbQuads.js';
import type { RdfRecordSource, RecordCounts } from './RdfRecordSource.js';
import { RdfSerializer } from './RdfSerializer.js';
import { StoreWorker } from './StoreWorker.js';
import { type SparqlForm, checkedSparqlForm } from './sparqlForm.js';
import { KbIris, type RdfQuad } from './terms.js';
import {
  deleteDocument,
  deleteEntities,
  deleteOrphanRelationships,
  deleteTriples,
  entityIdsOfDocumentsQuery,
  updateRequest,
} from './rdfUpdates.js';

export type RdfViewState = 'idle' | 'loading' | 'ready' | 'error';

export interface RdfViewStatus {
  state: RdfViewState;
  /** Quads in the store (while loading: loaded so far). */
  triples: number;
  message?: string;
}

export type { SparqlResult };

export interface RdfViewOptions {
  /** Quads per message to the worker while loading; bounds how long each step holds the main thread. Default: 5000. */
  batchSize?: number;
  /** Start loading at once (true) or on the first query/update/{@link RdfView.load} (false). Default: true. */
  autoLoad?: boolean;
  /** Called on every state change and after each loaded batch. */
  onStatus?: (status: RdfViewStatus) => void;
  /**
   * Most quads (estimated from the record counts) the in-memory store is loaded with. A graph
   * imported from a file of gigabytes would outgrow the worker's memory (4 GiB of WebAssembly
   * memory at most); above this the view refuses with UNSUPPORTED and says so. Default: 10,000,000.
   */
  maxQuads?: number;
}

export interface SparqlOptions {
  /** Wall-clock limit, including any wait for the view to finish loading. Default: 10_000. */
  timeoutMs?: number;
  /** Rows (SELECT) or triples (CONSTRUCT/DESCRIBE) returned at most; `truncated` tells. Default: 1000. */
  maxRows?: number;
  /** Allow SPARQL UPDATE. Changes only the in-memory view (lost at the next rebuild). Default: false. */
  allowUpdate?: boolean;
  /** Allow SERVICE clauses (a federated query sends part of itself to another server). Default: false. */
  allowService?: boolean;
  signal?: AbortSignal;
}

/**
 * The RDF view of one KB: an Oxigraph store derived from the records (resources/ontology.ttl), in a
 * worker thread. {@link open} returns at once and loads in the background (1M quads take seconds),
 * so opening a KB never waits for it; {@link status} says how far it got.
 *
 * SPARQL runs with a time limit. A wasm query cannot be interrupted, so on timeout the worker is
 * terminated, the call fails with TIMEOUT, and a fresh worker reloads from the records in the
 * background: later queries wait for it instead of failing.
 *
 * Incremental updates ({@link documentAdded}, {@link documentRemoved}, {@link entitiesChanged},
 * {@link triplesChanged}, {@link answersChanged}) run in call order after the load; each deletes what the view holds for
 * the named records and re-reads them from the source, so repeating one is harmless.
 */
export class RdfView {
  readonly #source: RdfRecordSource;
  readonly #options: Required<Omit<RdfViewOptions, 'onStatus'>> & Pick<RdfViewOptions, 'onStatus'>;
  readonly #iris: KbIris;
  #status: RdfViewStatus = { state: 'idle', triples: 0 };
  #worker: StoreWorker | null = null;
  #generation = 0;
  #loaded: Promise<void> | null = null;
  #queue: Promise<void> = Promise.resolve();
  #disposed = false;

  private constructor(source: RdfRecordSource, options: RdfViewOptions) {
    this.#source = source;
    this.#options = {
      batchSize: options.batchSize ?? 5000,
      autoLoad: options.autoLoad ?? true,
      maxQuads: options.maxQuads ?? 10_000_000,
      onStatus: options.onStatus,
    };
    this.#iris = new KbIris(source.baseIri);
  }

  /** Returns immediately; with `autoLoad` (default) the load starts in the background. */
  static open(source: RdfRecordSource, options: RdfViewOptions = {}): RdfView {
    const view = new RdfView(source, options);
    if (view.#options.autoLoad) void view.load().catch(() => undefined);
    return view;
  }

  get status(): RdfViewStatus {
    return { ...this.#status };
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Resolves when the current (re)load has finished; rejects with its error. Starts one if idle.
   * A load overtaken by a {@link rebuild} resolves with the newer one; one cut short by
   * {@link dispose} rejects with CancelledError.
   */
  load(): Promise<void> {
    this.#assertOpen();
    this.#loaded ??= this.#track(this.#startLoad());
    return this.#loaded;
  }

  /** Drops the store and reloads it from the records in the background. */
  rebuild(): Promise<void> {
    this.#assertOpen();
    this.#loaded = this.#track(this.#startLoad());
    return this.#loaded;
  }

  /**
   * Follows the records after they changed in bulk (an index or import job ended, however it
   * ended): a view that never loaded reads them when first used; a loaded or loading one reloads in
   * the background at once, and queries wait for that reload. Resolves when it is done.
   */
  resync(): Promise<void> {
    if (this.#disposed || this.#status.state === 'idle') return Promise.resolve();
    return this.rebuild();
  }

  async query(sparql: string, options: SparqlOptions = {}): Promise<SparqlResult> {
    this.#assertOpen();
    const timeoutMs = options.timeoutMs ?? 10_000;
    const maxRows = options.maxRows ?? 1000;
    const form = checkedSparqlForm(
      sparql,
      options.allowUpdate ?? false,
      'the RDF view is derived from the database and read-only by default',
      options.allowService ?? false,
    );
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new PolyhopError('TIMEOUT', `sparql: no answer within ${timeoutMs} ms`, { details: { timeoutMs } }));
      }, timeoutMs);
    });
    try {
      await raceAbort(Promise.race([this.load(), deadline]), options.signal);
      const worker = this.#loadedWorker();
      const run = this.#run(worker, form, sparql, maxRows);
      run.catch(() => undefined);
      const result = await raceAbort(Promise.race([run, deadline]), options.signal);
      return { ...result, elapsedMs: Math.round(performance.now() - started) };
    } catch (error) {
      // The query may still be spinning in wasm: kill that thread, keep serving from a fresh one.
      const running = this.#status.state === 'ready';
      if ((timedOut || options.signal?.aborted) && running) void this.rebuild().catch(() => undefined);
      if (timedOut && !running && this.#status.state === 'loading') {
        throw new PolyhopError(
          'TIMEOUT',
          `sparql: the RDF view is still loading (${this.#status.triples} triples so far); try again shortly`,
          {
            details: { timeoutMs, loaded: this.#status.triples },
          },
        );
      }
      throw error instanceof PolyhopError ? error : syntaxError(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Adds (or refreshes) a document, its chunks, and everything about the entities of its triples. */
  documentAdded(documentId: number): Promise<void> {
    return this.#mutate(async (worker, kq) => {
      await worker.call('update', { sparql: updateRequest(deleteDocument(this.#iris.document(documentId).value)) });
      const quads: RdfQuad[] = [];
      for await (const doc of this.#source.documents([documentId])) {
        quads.push(...kq.document(doc));
        const chunks = [];
        for await (const chunk of this.#source.chunksOfDocument(doc.id)) chunks.push(chunk);
        quads.push(...kq.chunks(doc.id, chunks));
      }
      await this.#add(worker, quads);
      const entityIds = new Set<number>();
      for await (const t of this.#source.triples({ documentId })) entityIds.add(t.sourceId).add(t.targetId);
      await this.#refreshEntities(worker, kq, [...entityIds]);
    });
  }

  /** Removes a document and its chunks, and re-derives the entities it mentioned (the source already lost what only it held). */
  documentRemoved(documentId: number): Promise<void> {
    return this.#mutate(async (worker, kq) => {
      const doc = this.#iris.document(documentId).value;
      const linked = await worker.call<{ rows: Record<string, string | null>[] }>('select', {
        sparql: entityIdsOfDocumentsQuery([doc]),
        maxRows: Number.MAX_SAFE_INTEGER,
      });
      await worker.call('update', { sparql: updateRequest(deleteDocument(doc)) });
      await this.#refreshEntities(
        worker,
        kq,
        linked.rows.map((row) => Number(row.id)),
      );
    });
  }

  /** Re-derives entities (name, type, summary, aliases, merges, deletion) and all their triples. */
  entitiesChanged(entityIds: readonly number[]): Promise<void> {
    return this.#mutate((worker, kq) => this.#refreshEntities(worker, kq, entityIds));
  }

  /** Re-derives triples (e.g. a new description); removed triples should go through {@link entitiesChanged}. */
  triplesChanged(tripleIds: readonly number[]): Promise<void> {
    return this.#mutate(async (worker, kq) => {
      if (tripleIds.length === 0) return;
      await worker.call('update', {
        sparql: updateRequest(
          deleteTriples(`VALUES ?id { ${tripleIds.map(Number).join(' ')} } ?t a ph:Triple ; ph:hasRecordId ?id .`),
        ),
      });
      const triples = await this.#source.triplesById(tripleIds);
      const chunkDocs = await this.#source.chunkDocuments([...new Set(triples.flatMap((t) => t.chunkIds))]);
      await this.#add(
        worker,
        triples.flatMap((t) => kq.triple(t, chunkDocs)),
      );
      await this.#refreshCount(worker);
    });
  }

  /** Re-reads the named graphs of these answers (a new answer, or one marked stale). */
  answersChanged(historyIds: readonly number[]): Promise<void> {
    return this.#mutate(async (worker) => {
      if (historyIds.length === 0 || !this.#source.answerGraphs) return;
      const drop = historyIds.map((id) => `DROP SILENT GRAPH <${this.#iris.answer(id).value}>`);
      await worker.call('update', { sparql: drop.join(' ;\n') });
      const quads: RdfQuad[] = [];
      for await (const record of this.#source.answerGraphs(historyIds))
        quads.push(...answerGraphQuads(record, this.#iris));
      await this.#add(worker, quads);
      await this.#refreshCount(worker);
    });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#generation++;
    const worker = this.#worker;
    this.#worker = null;
    await worker?.terminate();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  async #startLoad(): Promise<void> {
    const generation = ++this.#generation;
    const previous = this.#worker;
    const worker = new StoreWorker();
    this.#worker = worker;
    void previous?.terminate();
    this.#setStatus({ state: 'loading', triples: 0 });
    // Every await below may return to a view that was rebuilt or disposed meanwhile (its worker
    // terminated, its KB closed): each one is checked, and no worker call is left unawaited, since
    // a terminated worker rejects them all and an orphaned rejection ends the process.
    const current = (): boolean => generation === this.#generation;
    let inFlight: Promise<unknown> = Promise.resolve();
    try {
      const estimate = estimateQuads(await this.#source.recordCounts());
      if (!current()) return await this.#overtaken();
      if (estimate > this.#options.maxQuads) {
        const message =
          `the RDF view holds at most ${this.#options.maxQuads.toLocaleString('en')} statements in memory ` +
          `and this knowledge base makes about ${estimate.toLocaleString('en')}; publish it to an external SPARQL store ` +
          'and query it there, or export it (Turtle, N-Triples) for a dedicated triple store';
        this.#setStatus({ state: 'error', triples: 0, message });
        throw new PolyhopError('UNSUPPORTED', `RDF view: ${message}`, {
          details: { estimate, maxQuads: this.#options.maxQuads },
        });
      }
      const serializer = new RdfSerializer('nquads');
      let count = 0;
      for await (const batch of buildQuads(
        this.#source,
        { kind: 'all' },
        { batchSize: this.#options.batchSize, answers: true },
      )) {
        if (!current()) break;
        const text = serializer.write(batch);
        // Build the next batch's text while the worker parses this one.
        await inFlight;
        if (!current()) break;
        inFlight = worker.call('load', { text });
        // Awaited below, but the load may be suspended elsewhere (reading records, yielding) when a
        // dispose or rebuild terminates the worker and rejects it: it is handled from the start.
        inFlight.catch(() => undefined);
        count += batch.length;
        this.#setStatus({ state: 'loading', triples: count });
        // The records are read synchronously and the worker is often done first, so without this
        // the whole load would run as one stretch of microtasks and hold every front door.
        await yieldToEventLoop();
      }
      await inFlight;
      if (!current()) return await this.#overtaken();
      const size = await worker.call<number>('size');
      if (!current()) return await this.#overtaken();
      this.#setStatus({ state: 'ready', triples: size });
    } catch (error) {
      await inFlight.catch(() => undefined);
      if (!current()) return await this.#overtaken();
      if (error instanceof PolyhopError && error.code === 'UNSUPPORTED') throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.#setStatus({ state: 'error', triples: 0, message });
      throw new PolyhopError('INTERNAL', `RDF view: loading failed: ${message}`, { cause: error });
    }
  }

  /** What a load overtaken by a newer one (or by dispose) settles as: the newer load, or CancelledError. */
  #overtaken(): Promise<void> {
    if (this.#disposed || !this.#loaded)
      return Promise.reject(new CancelledError('RDF view: closed while it was loading'));
    return this.#loaded;
  }

  /** Callers see the rejection; marking it handled here keeps a load nobody awaits from ending the process. */
  #track(load: Promise<void>): Promise<void> {
    load.catch(() => undefined);
    return load;
  }

  async #run(
    worker: StoreWorker,
    form: SparqlForm,
    sparql: string,
    maxRows: number,
  ): Promise<Omit<SparqlResult, 'elapsedMs'>> {
    switch (form) {
      case 'select': {
        const r = await worker.call<{ columns: string[]; rows: Record<string, string | null>[]; truncated: boolean }>(
          'select',
          { sparql, maxRows },
        );
        return { kind: 'select', ...r };
      }
      case 'ask': {
        const value = await worker.call<boolean>('ask', { sparql });
        return { kind: 'ask', columns: [], rows: [], boolean: value, truncated: false };
      }
      case 'construct':
      case 'describe': {
        const r = await worker.call<{ text: string; truncated: boolean }>('graph', { sparql, maxRows });
        return {
          kind: 'graph',
          columns: [],
          rows: [],
          turtle: graphResultTurtle(r.text, this.#source.baseIri),
          truncated: r.truncated,
        };
      }
      case 'update':
        await this.#enqueue(async () => {
          await worker.call('update', { sparql });
          await this.#refreshCount(worker);
        });
        return { kind: 'update', columns: [], rows: [], truncated: false };
    }
  }

  #mutate(fn: (worker: StoreWorker, kq: KbQuads) => Promise<void>): Promise<void> {
    this.#assertOpen();
    return this.#enqueue(async () => {
      await this.load();
      const generation = this.#generation;
      const worker = this.#loadedWorker();
      try {
        await fn(worker, new KbQuads(this.#iris));
      } catch (error) {
        // A query timeout replaced the worker mid-update: the reload reads the current records anyway.
        if (generation !== this.#generation) return;
        throw error;
      }
    });
  }

  #enqueue(fn: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #refreshEntities(worker: StoreWorker, kq: KbQuads, entityIds: readonly number[]): Promise<void> {
    if (entityIds.length > 0) {
      await worker.call('update', { sparql: updateRequest(deleteEntities(entityIds)) });
      const quads: RdfQuad[] = [];
      const triples = new Map<number, Parameters<KbQuads['triple']>[0]>();
      for await (const entity of this.#source.entities(entityIds)) {
        quads.push(...kq.entity(entity));
        for (const t of await this.#source.triplesOfEntity(entity.id)) triples.set(t.id, t);
      }
      const chunkDocs = await this.#source.chunkDocuments([
        ...new Set([...triples.values()].flatMap((t) => t.chunkIds)),
      ]);
      for (const t of triples.values()) quads.push(...kq.triple(t, chunkDocs));
      await this.#add(worker, quads);
    }
    await worker.call('update', { sparql: updateRequest(deleteOrphanRelationships()) });
    await this.#refreshCount(worker);
  }

  async #add(worker: StoreWorker, quads: readonly RdfQuad[]): Promise<void> {
    const serializer = new RdfSerializer('nquads');
    for (let i = 0; i < quads.length; i += this.#options.batchSize) {
      await worker.call('load', { text: serializer.write(quads.slice(i, i + this.#options.batchSize)) });
    }
  }

  async #refreshCount(worker: StoreWorker): Promise<void> {
    const size = await worker.call<number>('size');
    if (worker === this.#worker && this.#status.state === 'ready') this.#setStatus({ state: 'ready', triples: size });
  }

  #setStatus(status: RdfViewStatus): void {
    this.#status = status;
    this.#options.onStatus?.({ ...status });
  }

  /** The worker after an awaited load: the view may have been disposed meanwhile. */
  #loadedWorker(): StoreWorker {
    this.#assertOpen();
    if (!this.#worker) throw new BugIndicatingError('RdfView: loaded without a worker');
    return this.#worker;
  }

  #assertOpen(): void {
    if (this.#disposed) throw new PolyhopError('INTERNAL', 'RDF view: used after dispose');
  }
}

/** Quads the view would hold for these records (KbQuads writes about this many per record). */
export function estimateQuads(counts: RecordCounts): number {
  return 8 * (counts.documents + counts.chunks) + 6 * counts.entities + 13 * counts.triples;
}

function syntaxError(error: unknown): PolyhopError {
  const message = error instanceof Error ? error.message : String(error);
  return new PolyhopError('BAD_INPUT', `sparql: ${message}`, { details: { reason: message }, cause: error });
}
