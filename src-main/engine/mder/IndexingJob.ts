import { throwIfAborted } from '../base/abort.js';
import { yieldToEventLoop } from '../base/concurrency.js';
import { isCancellation, PolyhopError } from '../base/errors.js';
import type { Llm } from '../models/Llm.js';
import type { ChunkRecord, DocumentStatus, KnowledgeBase, TripleRecord } from '../kb/index.js';
import { preprocessChunk } from '../ingest/preprocess/index.js';
import { mapChunk, UNKNOWN_TYPE } from './mapChunk.js';
import { disambiguate, type MergeGroup } from './disambiguate.js';
import { enrichChunk } from './enrichChunk.js';
import { planReduceUnits, reduceUnit, type ReduceEntity, type ReduceUnit } from './reduceEntities.js';
import { MeteredLlm } from './MeteredLlm.js';
import { tripleText, nameKey } from './names.js';
import { INGEST_NOTE } from './ingestPending.js';
import { planEmbedding } from './planEmbedding.js';
import { calibrateKb, PAPER_THRESHOLDS } from './calibration/index.js';
import { asUnitFailure, describeFailure, missFailure } from './unitFailure.js';
import { Attempts, samplingFor } from './attempts.js';
import { addVariants, disambiguationQueue, finishDisambiguation, kbDisambiguationStore } from './kbDisambiguation.js';
import { IndexingWork, type ChunkRef } from './IndexingWork.js';
import { preprocessBatch } from './preprocessBatch.js';
import { StageRunner, type UnitRetry } from './StageRunner.js';
import type { IndexingJobOptions, IndexingResult } from './indexingTypes.js';

export type {
  IndexingChanges,
  IndexingJobOptions,
  IndexingProgress,
  IndexingResult,
  StageStats,
} from './indexingTypes.js';

const ALL = 2 ** 31 - 1;
/** Chunks whose triples Enrich reads per query while planning its units. */
const ENRICH_PLAN_CHUNKS = 2000;
/**
 * Documents of one chunk that Preprocess summarises per call by default (see `preprocess.chunksPerCall`):
 * the instructions and chat template are paid once per 8 chunks, and a batch's reply (8 rewrites
 * of short passages) stays well inside a 4,096-token context.
 */
const PREPROCESS_CHUNKS_PER_CALL = 8;
const mapCheckpoint = (chunkId: number): string => `mder:map:${chunkId}`;

/**
 * Runs MDER over every document of a KB that is not indexed yet: preprocess → map →
 * disambiguate → enrich → reduce → embed (+ FTS) → RDF view. Each unit's result is written with
 * its checkpoint in one transaction, so a killed job resumes where it stopped, and the stages only
 * look at what is unfinished: new documents add chunks and triples, new entities are compared with
 * all existing ones, and only entities whose triples changed are reduced again.
 */
export class IndexingJob {
  readonly #kb: KnowledgeBase;
  readonly #llm: MeteredLlm;
  readonly #options: IndexingJobOptions;
  readonly #runner: StageRunner;

  constructor(kb: KnowledgeBase, llm: Llm, options: IndexingJobOptions) {
    this.#kb = kb;
    this.#llm = new MeteredLlm(llm);
    this.#options = options;
    this.#runner = new StageRunner(this.#llm, options);
  }
  async run(): Promise<IndexingResult> {
    const kb = this.#kb;
    const { embedder, signal } = this.#options;
    throwIfAborted(signal);
    kb.vectors.assertEmbedder(embedder.identity, embedder.dimension);
    // Documents without chunks failed at ingest (their error says why) and have nothing to index.
    const docs = [...kb.documents.iterateDocuments()].filter((d) => d.status !== 'indexed' && d.chunkCount > 0);
    for (const d of docs) kb.documents.setDocumentStatus(d.id, 'indexing');
    const work = new IndexingWork(kb, docs);

    await this.#preprocess(work);
    await this.#map(work);
    const merges = await this.#disambiguate();
    await this.#enrich(work);
    await this.#reduce();
    await this.#embed();
    if (this.#options.updateRdfView) {
      const changes = { documentIds: docs.map((d) => d.id), mergedEntityIds: merges.flatMap((m) => m.mergeIds) };
      await this.#runner.stage('rdf', 1, async (tick) => {
        await this.#options.updateRdfView!(changes, signal);
        tick();
      });
    }

    const documents = docs.map((d) => {
      const failures = this.#runner.failuresOf(d.id);
      const error =
        failures.length === 0
          ? null
          : describeFailure(failures[0]!) + (failures.length > 1 ? ` (+${failures.length - 1} more)` : '');
      const status: DocumentStatus = error ? 'error' : 'indexed';
      // An indexed document keeps the note ingest left on it (pages it could not read).
      kb.documents.setDocumentStatus(d.id, status, error ?? (d.error?.startsWith(INGEST_NOTE) ? d.error : null));
      return { id: d.id, status, error };
    });
    return { documents, stages: this.#runner.stages, failures: this.#runner.failures, merges };
  }

  // ── stages ────────────────────────────────────────────────────────────────────

  async #preprocess(work: IndexingWork): Promise<void> {
    const { chunksPerCall = PREPROCESS_CHUNKS_PER_CALL, ...preprocess } = this.#options.preprocess ?? {};
    const options = { ...preprocess, prompts: this.#options.prompts };
    const attempts = new Attempts(this.#kb, 'preprocess');
    const one = async (ref: ChunkRef, signal: AbortSignal, retry: UnitRetry | null): Promise<void> => {
      const chunk = work.load(ref);
      // Asked again after a failure for length: without the neighbours' text, the prompt's largest optional part.
      const { previous, next } = retry?.forLength ? { previous: null, next: null } : work.neighbours(ref);
      const input = {
        text: chunk.text,
        language: chunk.language,
        previous: previous?.text ?? null,
        next: next?.text ?? null,
      };
      const result = await retried(attempts, chunk.id, (sampling) =>
        preprocessChunk(this.#llm, input, { ...options, sampling, signal }),
      );
      this.#written(ref, result.summary, result.englishText, attempts);
    };
    // Batched: documents of one chunk, summarised in English, K to a call; the rest one per call.
    const batchable = (ref: ChunkRef): boolean =>
      chunksPerCall > 1 && options.summarise !== false && options.summaryInSourceLanguage !== true && work.alone(ref);
    const pending = work.chunks.filter((c) => !c.preprocessed);
    const units: ChunkRef[][] = pending.filter((c) => !batchable(c)).map((c) => [c]);
    // The batched prompt names one passage language, so the chunks are grouped by language before they are cut.
    const byLanguage = new Map<string | null, ChunkRef[]>();
    for (const c of pending.filter(batchable)) {
      const group = byLanguage.get(c.language) ?? [];
      if (group.push(c) === 1) byLanguage.set(c.language, group);
    }
    for (const alone of byLanguage.values())
      for (let i = 0; i < alone.length; i += chunksPerCall) units.push(alone.slice(i, i + chunksPerCall));
    await this.#runner.units(
      'preprocess',
      units,
      async (refs, signal, retry) => {
        // Asked again after a failure: only the chunks it did not write.
        const left = refs.filter((r) => !r.preprocessed);
        if (left.length === 1) return one(left[0]!, signal, retry);
        await this.#preprocessBatch(work, left, { chunksPerCall, maxTokens: preprocess.maxTokens }, attempts, signal);
        // The chunks the batch left without a text are asked one by one with the single-chunk prompt; one
        // that fails there too is recorded as its own document's failure, and the others go on.
        for (const ref of left) {
          if (ref.preprocessed) continue;
          try {
            await one(ref, signal, null);
          } catch (error) {
            // A cancel or a bug stops the stage, as StageRunner.units does (asUnitFailure rethrows them).
            this.#runner.fail('preprocess', asUnitFailure(error, 'preprocess', work.unitName(ref)), ref.documentId);
          }
        }
      },
      (refs) => (refs.length === 1 ? work.unitName(refs[0]!) : `${refs.length} chunks from ${work.unitName(refs[0]!)}`),
      // A batch that fails (its call refused) fails every document in it, not only the first.
      (refs) => [...new Set(refs.map((r) => r.documentId))],
      { retryFailed: true },
    );
  }

  /** Summarises chunks with no neighbours, all of one language, in one call (split as askInBatches splits); writes each text it got. */
  async #preprocessBatch(
    work: IndexingWork,
    refs: ChunkRef[],
    budget: { chunksPerCall: number; maxTokens: number | undefined },
    attempts: Attempts,
    signal: AbortSignal,
  ): Promise<void> {
    const chunks = refs.map((ref) => work.load(ref));
    const sampling = samplingFor(Math.max(...chunks.map((c) => attempts.count(c.id))));
    const items = refs.map((ref, i) => ({
      title: work.document(ref).title || work.document(ref).path,
      text: chunks[i]!.text,
    }));
    const { texts } = await preprocessBatch(this.#llm, items, refs[0]!.language, {
      prompts: this.#options.prompts,
      ...budget,
      sampling,
      signal,
    });
    refs.forEach((ref, i) => {
      const text = texts[i];
      if (text) this.#written(ref, text, text, attempts);
    });
  }

  /** A chunk's preprocessed text, written with its checkpoint (its English text) in one transaction. */
  #written(ref: ChunkRef, summary: string | null, englishText: string, attempts: Attempts): void {
    this.#kb.transaction(() => {
      this.#kb.documents.updateChunk(ref.id, { summary, englishText });
      attempts.succeeded(ref.id);
    });
    ref.preprocessed = true;
  }

  async #map(work: IndexingWork): Promise<void> {
    const kb = this.#kb;
    const pending = work.chunks.filter(
      (c) => c.preprocessed && kb.jobState.getCheckpoint(mapCheckpoint(c.id)) === undefined,
    );
    const options = { prompts: this.#options.prompts, maxTokens: this.#options.map?.maxTokens };
    const attempts = new Attempts(kb, 'map');
    await this.#runner.units(
      'map',
      pending,
      async (ref, signal, retry) => {
        const chunk = work.load(ref);
        const input = { title: work.document(ref).title, englishText: chunk.englishText! };
        // Asked again after a failure for length: the text is halved before the first call.
        const splitFirst = retry?.forLength === true;
        const result = await retried(attempts, chunk.id, (sampling) =>
          mapChunk(this.#llm, input, { ...options, sampling, signal, splitFirst }),
        );
        const entities = new Map(result.entities.map((e) => [nameKey(e.name), e]));
        kb.transaction(() => {
          const upsert = (name: string): number => {
            const entity = entities.get(nameKey(name));
            const id = kb.graph.upsertEntity(name, entity?.type ?? UNKNOWN_TYPE);
            if (entity && entity.variants.length > 0) addVariants(kb, id, entity.variants);
            return id;
          };
          for (const t of result.triples) {
            const sourceId = upsert(t.source);
            const targetId = upsert(t.target);
            kb.graph.addTriple({ sourceId, relation: t.relation, targetId, chunkId: chunk.id });
          }
          kb.jobState.setCheckpoint(mapCheckpoint(chunk.id), {
            triples: result.triples.length,
            ...(result.cuts > 0 ? { cut: true } : {}),
          });
          attempts.succeeded(chunk.id);
        });
      },
      (ref) => work.unitName(ref),
      (ref) => ref.documentId,
      { retryFailed: true },
    );
  }

  async #disambiguate(): Promise<MergeGroup[]> {
    const kb = this.#kb;
    const { queue, undecided } = disambiguationQueue(kb);
    let result: MergeGroup[] = [];
    let left: number[] = [];
    await this.#runner.stage('disambiguate', 0, async (_tick, setTotal) => {
      const store = kbDisambiguationStore(kb);
      const outcome = await disambiguate(this.#llm, this.#options.embedder, store, queue, {
        ...this.#options.disambiguate,
        threshold: await this.#mergeThreshold(queue.length),
        prompts: this.#options.prompts,
        concurrency: this.#options.concurrency,
        sampling: samplingFor(undecided?.runs ?? 0),
        signal: this.#options.signal,
        onFailure: (f) => this.#runner.fail('disambiguate', f),
        onProgress: (done, total) => setTotal(total, done),
      });
      result = outcome.merges;
      left = outcome.undecided.filter((id) => kb.graph.getEntity(id) !== undefined);
    });
    finishDisambiguation(kb, left, undecided);
    return result;
  }

  /** The name similarity from which Disambiguate asks about a pair: as set, the paper's, or the KB's calibrated one (measured first if due). */
  async #mergeThreshold(queued: number): Promise<number> {
    const { disambiguate: set, thresholds = 'calibrated', embedder, signal } = this.#options;
    if (set?.threshold !== undefined) return set.threshold;
    if (thresholds === 'paper' || queued === 0) return PAPER_THRESHOLDS.merge;
    return (await calibrateKb(this.#kb, embedder, signal ? { signal } : {})).mergeThreshold;
  }

  async #enrich(work: IndexingWork): Promise<void> {
    const kb = this.#kb;
    const ctx = this.#options.enrich ?? {};
    const chars = ctx.contextChars ?? 1500;
    const jobChunks = new Set(work.chunks.map((c) => c.id));
    // A triple is described from the newest chunk of this job it came from; its other source chunks are extra context.
    // Read a slice of chunks at a time, letting the event loop turn (all at once held it ~3 s at 240k chunks).
    const byChunk = new Map<number, TripleRecord[]>();
    const planned = new Set<number>();
    const ids = [...jobChunks];
    for (let start = 0; start < ids.length; start += ENRICH_PLAN_CHUNKS) {
      for (const t of kb.graph.triplesOfChunks(ids.slice(start, start + ENRICH_PLAN_CHUNKS))) {
        if (t.description !== null || planned.has(t.id)) continue;
        planned.add(t.id);
        const home = Math.max(...t.chunkIds.filter((id) => jobChunks.has(id)));
        const group = byChunk.get(home);
        if (group) group.push(t);
        else byChunk.set(home, [t]);
      }
      await yieldToEventLoop();
    }
    for (const group of byChunk.values()) group.sort((a, b) => a.id - b.id);
    const units = [...byChunk.entries()].sort(([a], [b]) => a - b);
    const text = (c: ChunkRecord | null | undefined, fromEnd = false): string | null =>
      c ? clip(c.englishText ?? c.text, chars, fromEnd) : null;
    const attempts = new Attempts(kb, 'enrich');
    await this.#runner.units(
      'enrich',
      units,
      async ([chunkId, triples], signal) => {
        const ref = work.ref(chunkId);
        const chunk = work.load(ref);
        const { previous, next } = work.neighbours(ref);
        const others = [...new Set(triples.flatMap((t) => t.chunkIds))]
          .filter((id) => id !== chunkId && id !== previous?.id && id !== next?.id)
          .slice(0, ctx.maxOtherChunks ?? 2);
        const { descriptions, misses } = await enrichChunk(
          this.#llm,
          {
            current: chunk.englishText ?? chunk.text,
            previous: text(previous, true),
            next: text(next),
            other: kb.documents.getChunks(others).map((c) => text(c)!),
            triples: triples.map((t) => ({ source: t.sourceName, relation: t.relation, target: t.targetName })),
          },
          {
            prompts: this.#options.prompts,
            signal,
            maxTokensPerTriple: ctx.maxTokensPerTriple,
            maxTriplesPerCall: ctx.maxTriplesPerCall,
            sampling: attempts.sampling(chunkId),
          },
        );
        const described = triples.flatMap((t, i) =>
          descriptions[i] ? [{ id: t.id, description: descriptions[i] }] : [],
        );
        kb.transaction(() => {
          for (const t of described) kb.graph.setTripleDescription(t.id, t.description);
          kb.vectors.deleteVectors(
            'triple',
            described.map((t) => t.id),
          );
          if (misses.length > 0) attempts.failed(chunkId);
          else attempts.succeeded(chunkId);
        });
        // Undescribed triples stay without a description (Reduce reads them verbalised) and are asked again by the next run.
        if (misses.length > 0)
          this.#runner.fail(
            'enrich',
            missFailure(
              'enrich',
              `${misses.length} of ${triples.length} triples of ${work.unitName(ref)}`,
              misses.map((m) => ({ triple: triples[m.index]!.id, reason: m.reason })),
            ),
            ref.documentId,
          );
      },
      ([chunkId, triples]) => `${triples.length} triples of ${work.unitName(work.ref(chunkId))}`,
      ([chunkId]) => work.ref(chunkId).documentId,
    );
  }

  async #reduce(): Promise<void> {
    const kb = this.#kb;
    const options = this.#options.reduce ?? {};
    const stale = kb.graph
      .listEntities({ stale: true, limit: ALL })
      .map((e) => ({ entity: e, triples: inSourceOrder(kb.graph.triplesOfEntity(e.id, 'both', ALL)) }))
      .filter((e) => e.triples.length > 0)
      .sort((a, b) => a.entity.id - b.entity.id);
    // An entity whose facts all have one description (one fact, or several of one sentence) is
    // summarised by that description and its type: a model would only rephrase it.
    const copied =
      options.copySingleFact === false
        ? []
        : stale.filter(
            (e) =>
              e.triples[0]!.description !== null && e.triples.every((t) => t.description === e.triples[0]!.description),
          );
    kb.transaction(() =>
      copied.forEach((e) =>
        kb.graph.setEntitySummary(e.entity.id, `${e.entity.name} (${e.entity.type}): ${e.triples[0]!.description!}`),
      ),
    );
    const copiedSet = new Set(copied);
    const entities: ReduceEntity[] = stale
      .filter((e) => !copiedSet.has(e))
      .map(({ entity, triples }) => ({
        id: entity.id,
        name: entity.name,
        type: entity.type,
        facts: triples.map((t) => t.description ?? tripleText(t.sourceName, t.relation, t.targetName, null)),
        factTripleIds: triples.map((t) => t.id),
      }));
    const units = planReduceUnits(entities, (t) => this.#llm.countTokens(t), options);
    const ids = (unit: ReduceUnit): number[] =>
      unit.kind === 'hub' ? [unit.entity.id] : unit.entities.map((e) => e.id);
    const attempts = new Attempts(kb, 'reduce');
    const unitName = (unit: ReduceUnit): string =>
      unit.kind === 'hub'
        ? `entity ${unit.entity.id} (${unit.entity.facts.length} facts)`
        : `entities ${ids(unit).join(', ')}`;
    await this.#runner.units(
      'reduce',
      units,
      async (unit, signal) => {
        const sampling = samplingFor(Math.max(...ids(unit).map((id) => attempts.count(id))));
        const { summaries, partials, misses } = await reduceUnit(this.#llm, unit, {
          ...options,
          prompts: this.#options.prompts,
          sampling,
          signal,
        });
        const incomplete = new Set(misses.map((m) => m.id));
        kb.transaction(() => {
          for (const [id, summary] of summaries)
            kb.graph.setEntitySummary(id, summary, { incomplete: incomplete.has(id) });
          // A hub's partial summaries hold what its capped summary could not: kept for answering (after the summary, which drops the old ones).
          for (const [id, written] of partials) kb.partialSummaries.replace(id, written);
          for (const id of ids(unit))
            if (incomplete.has(id)) attempts.failed(id);
            else attempts.succeeded(id);
        });
        // An entity left without a summary, or with one some of its facts did not reach, stays stale and is reduced again by the next run.
        if (misses.length > 0)
          this.#runner.fail(
            'reduce',
            missFailure(
              'reduce',
              unitName(unit),
              misses.map((m) => ({ entity: m.id, reason: m.reason })),
            ),
          );
      },
      unitName,
    );
  }

  async #embed(): Promise<void> {
    // Embedding failures are not data problems of one unit (a wrong model fails every batch): they fail the job.
    const plan = planEmbedding(this.#kb, this.#options.embedder, {
      batchSize: this.#options.embedBatchSize ?? 32,
      ...(this.#options.signal ? { signal: this.#options.signal } : {}),
    });
    await this.#runner.stage('embed', plan.total, (tick) => plan.run(tick));
  }
}

/**
 * Facts in the order the documents state them (first source chunk, then text), not in the order
 * the triples were written: that depends on which units a concurrent or interrupted run finished
 * first, and an entity's summary must not.
 */
function inSourceOrder(triples: readonly TripleRecord[]): TripleRecord[] {
  const first = (t: TripleRecord): number =>
    t.chunkIds.length > 0 ? Math.min(...t.chunkIds) : Number.MAX_SAFE_INTEGER;
  const text = (t: TripleRecord): string => tripleText(t.sourceName, t.relation, t.targetName, null);
  return [...triples].sort((a, b) => first(a) - first(b) || text(a).localeCompare(text(b)));
}

/** The first (or, for the previous chunk, the last) `chars` characters: the part next to the current chunk. */
function clip(text: string, chars: number, fromEnd = false): string {
  if (text.length <= chars) return text;
  return fromEnd ? `…${text.slice(-chars)}` : `${text.slice(0, chars)}…`;
}

/**
 * Runs a unit's model calls with the sampling its earlier failures call for, and counts a failure
 * (an invalid reply, not a cancel or a bug) so the next run samples it another way.
 */
async function retried<T>(
  attempts: Attempts,
  unit: number,
  run: (sampling: ReturnType<typeof samplingFor>) => Promise<T>,
): Promise<T> {
  try {
    return await run(attempts.sampling(unit));
  } catch (error) {
    if (error instanceof PolyhopError && !isCancellation(error)) attempts.failed(unit);
    throw error;
  }
}
