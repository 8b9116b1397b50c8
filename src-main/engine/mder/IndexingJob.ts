import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent, yieldToEventLoop } from '../base/concurrency.js';
import { isCancellation, PolyhopError } from '../base/errors.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type {
  ChunkRecord,
  DocumentRecord,
  DocumentStatus,
  EntityRecord,
  KnowledgeBase,
  TripleRecord,
} from '../kb/index.js';
import { preprocessChunk, type PreprocessOptions } from '../ingest/preprocess/index.js';
import { mapChunk, UNKNOWN_TYPE } from './mapChunk.js';
import {
  disambiguate,
  type DisambiguateOptions,
  type DisambiguationEntity,
  type DisambiguationStore,
  type MergeGroup,
} from './disambiguate.js';
import { enrichChunk } from './enrichChunk.js';
import {
  planReduceUnits,
  reduceUnit,
  type ReduceBatchingOptions,
  type ReduceEntity,
  type ReduceUnit,
} from './reduceEntities.js';
import { MeteredLlm } from './MeteredLlm.js';
import { UsageMeter, type UsageTotals } from '../models/UsageMeter.js';
import { tripleText, nameKey } from './names.js';
import { INGEST_NOTE } from './ingestPending.js';
import { planEmbedding } from './planEmbedding.js';
import { calibrateKb, PAPER_THRESHOLDS, type ThresholdMode } from './calibration/index.js';
import type { StageProgress } from '../base/progress.js';
import { asUnitFailure, describeFailure, missFailure, type MderStage, type UnitFailure } from './unitFailure.js';
import { Attempts, samplingFor } from './attempts.js';

/** Progress of one stage (the job runner adds the job's identity). LLM figures are per stage. */
export type IndexingProgress = StageProgress;

/** What a job changed, for the RDF view to follow. */
export interface IndexingChanges {
  /** Documents this job worked on (their chunks, triples and statuses may have changed). */
  documentIds: number[];
  /** Entities merged away by Disambiguate (gone from SQLite; their RDF nodes must go too). */
  mergedEntityIds: number[];
}

export interface IndexingJobOptions {
  prompts: PromptLibrary;
  /** Embeds chunks, entity names, summaries and triples; must match the KB's recorded embedder. */
  embedder: Embedder;
  /** Called as units finish (at most every `progressIntervalMs` per stage, plus each stage's start and end). */
  onProgress?: (progress: IndexingProgress) => void;
  /** Default: 250. */
  progressIntervalMs?: number;
  /**
   * Cancels the job; checkpoints stay, so pausing is cancelling and resuming is running again.
   * The run rejects with CancelledError.
   */
  signal?: AbortSignal;
  preprocess?: Pick<PreprocessOptions, 'summarise' | 'summaryInSourceLanguage' | 'maxTokens'>;
  map?: { /** Default: 2048. */ maxTokens?: number };
  /** `threshold` set here wins over {@link thresholds}. */
  disambiguate?: Pick<DisambiguateOptions, 'threshold' | 'neighbours' | 'pairsPerCall' | 'contextChars' | 'maxTokens'>;
  /**
   * Disambiguate's name-similarity threshold: fitted to the embedder on this KB (recorded with it,
   * see mder/calibration) or the paper's 0.95. Default: 'calibrated'.
   */
  thresholds?: ThresholdMode;
  enrich?: {
    /** Default: 96. */
    maxTokensPerTriple?: number;
    /** Other provenance chunks of a chunk's triples shown as context. Default: 2. */
    maxOtherChunks?: number;
    /** Characters of each neighbour / other chunk shown. Default: 1500. */
    contextChars?: number;
    /** Triples described per call at most (a chunk with more is split). Default: 24. */
    maxTriplesPerCall?: number;
  };
  reduce?: ReduceBatchingOptions & {
    /** Completion budget of one summary at most (its length grows with the entity's facts up to this). Default: 496. */
    maxTokensPerEntity?: number;
    /** An entity with a single described triple takes that description as its summary, without a call. Default: true. */
    copySingleFact?: boolean;
  };
  /** Texts per embedder call. Default: 32. */
  embedBatchSize?: number;
  /** Parallel LLM calls per stage. Default: llm.parallelism. */
  concurrency?: number;
  /**
   * Updates the RDF view after SQLite is final (last stage). The lead wires the RDF helper's
   * updater here; when absent the stage is skipped and the view is rebuilt elsewhere.
   */
  updateRdfView?: (changes: IndexingChanges, signal?: AbortSignal) => Promise<void>;
}

/** One stage of a run: LLM usage (calls that ran a model, cache hits, their tokens and model time) and units. */
export interface StageStats extends UsageTotals {
  /** Units the stage had to do in this run (finished ones from earlier runs are not counted). */
  units: number;
  /** Units recorded as failed. */
  failed: number;
  /** Wall time of the stage (`ms` is model time). */
  wallMs: number;
}

export interface IndexingResult {
  documents: { id: number; status: DocumentStatus; error: string | null }[];
  stages: Partial<Record<MderStage, StageStats>>;
  /** Every unit whose output stayed invalid, in order; document-level ones are also in the document's error. */
  failures: UnitFailure[];
  merges: MergeGroup[];
}

const ALL = 2 ** 31 - 1;
/** Chunks whose triples Enrich reads per query while planning its units. */
const ENRICH_PLAN_CHUNKS = 2000;
/** The entities of the current Disambiguate round (vectors written, pairs not all decided yet). */
const PENDING_DISAMBIGUATION = 'mder:disambiguate:pending';
/** Entities kept by this round's merges so far: the next round's queue. */
const MERGED_PENDING_DISAMBIGUATION = 'mder:disambiguate:merged';
/** Entities of pairs a run left undecided, and how many runs did: queued again, sampled another way. */
const UNDECIDED_DISAMBIGUATION = 'mder:disambiguate:undecided';
const mapCheckpoint = (chunkId: number): string => `mder:map:${chunkId}`;
/** Other forms of an entity's name that Map saw in parentheses: Disambiguate's evidence, kept with the KB. */
const variantsKey = (entityId: number): string => `mder:variants:${entityId}`;

function addVariants(kb: KnowledgeBase, entityId: number, variants: readonly string[]): void {
  const known = kb.getCheckpoint<string[]>(variantsKey(entityId)) ?? [];
  const added = variants.filter((v) => !known.some((k) => nameKey(k) === nameKey(v)));
  if (added.length > 0) kb.setCheckpoint(variantsKey(entityId), [...known, ...added]);
}

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
  readonly #failures: UnitFailure[] = [];
  readonly #docFailures = new Map<number, UnitFailure[]>();
  readonly #stages: Partial<Record<MderStage, StageStats>> = {};

  constructor(kb: KnowledgeBase, llm: Llm, options: IndexingJobOptions) {
    this.#kb = kb;
    this.#llm = new MeteredLlm(llm);
    this.#options = options;
  }

  async run(): Promise<IndexingResult> {
    const kb = this.#kb;
    const { embedder, signal } = this.#options;
    throwIfAborted(signal);
    kb.assertEmbedder(embedder.identity, embedder.dimension);
    // Documents without chunks failed at ingest (their error says why) and have nothing to index.
    const docs = [...kb.iterateDocuments()].filter((d) => d.status !== 'indexed' && d.chunkCount > 0);
    for (const d of docs) kb.setDocumentStatus(d.id, 'indexing');
    const work = new Work(kb, docs);

    await this.#preprocess(work);
    await this.#map(work);
    const merges = await this.#disambiguate();
    await this.#enrich(work);
    await this.#reduce();
    await this.#embed();
    if (this.#options.updateRdfView) {
      const changes = { documentIds: docs.map((d) => d.id), mergedEntityIds: merges.flatMap((m) => m.mergeIds) };
      await this.#stage('rdf', 1, async (tick) => {
        await this.#options.updateRdfView!(changes, signal);
        tick();
      });
    }

    const documents = docs.map((d) => {
      const failures = this.#docFailures.get(d.id) ?? [];
      const error =
        failures.length === 0
          ? null
          : describeFailure(failures[0]!) + (failures.length > 1 ? ` (+${failures.length - 1} more)` : '');
      const status: DocumentStatus = error ? 'error' : 'indexed';
      // An indexed document keeps the note ingest left on it (pages it could not read).
      kb.setDocumentStatus(d.id, status, error ?? (d.error?.startsWith(INGEST_NOTE) ? d.error : null));
      return { id: d.id, status, error };
    });
    return { documents, stages: this.#stages, failures: this.#failures, merges };
  }

  // ── stages ────────────────────────────────────────────────────────────────────

  async #preprocess(work: Work): Promise<void> {
    const pending = work.chunks.filter((c) => !c.preprocessed);
    const options = { ...this.#options.preprocess, prompts: this.#options.prompts };
    const attempts = new Attempts(this.#kb, 'preprocess');
    await this.#units(
      'preprocess',
      pending,
      async (ref, signal) => {
        const chunk = work.load(ref);
        const { previous, next } = work.neighbours(ref);
        const input = {
          text: chunk.text,
          language: chunk.language,
          previous: previous?.text ?? null,
          next: next?.text ?? null,
        };
        const result = await retried(attempts, chunk.id, (sampling) =>
          preprocessChunk(this.#llm, input, { ...options, sampling, signal }),
        );
        this.#kb.transaction(() => {
          this.#kb.updateChunk(chunk.id, { summary: result.summary, englishText: result.englishText });
          attempts.succeeded(chunk.id);
        });
        ref.preprocessed = true;
      },
      (ref) => work.unitName(ref),
      (ref) => ref.documentId,
    );
  }

  async #map(work: Work): Promise<void> {
    const kb = this.#kb;
    const pending = work.chunks.filter((c) => c.preprocessed && kb.getCheckpoint(mapCheckpoint(c.id)) === undefined);
    const options = { prompts: this.#options.prompts, maxTokens: this.#options.map?.maxTokens };
    const attempts = new Attempts(kb, 'map');
    await this.#units(
      'map',
      pending,
      async (ref, signal) => {
        const chunk = work.load(ref);
        const input = { title: work.document(ref).title, englishText: chunk.englishText! };
        const result = await retried(attempts, chunk.id, (sampling) =>
          mapChunk(this.#llm, input, { ...options, sampling, signal }),
        );
        const entities = new Map(result.entities.map((e) => [nameKey(e.name), e]));
        kb.transaction(() => {
          const upsert = (name: string): number => {
            const entity = entities.get(nameKey(name));
            const id = kb.upsertEntity(name, entity?.type ?? UNKNOWN_TYPE);
            if (entity && entity.variants.length > 0) addVariants(kb, id, entity.variants);
            return id;
          };
          for (const t of result.triples) {
            const sourceId = upsert(t.source);
            const targetId = upsert(t.target);
            kb.addTriple({ sourceId, relation: t.relation, targetId, chunkId: chunk.id });
          }
          kb.setCheckpoint(mapCheckpoint(chunk.id), {
            triples: result.triples.length,
            ...(result.cuts > 0 ? { cut: true } : {}),
          });
          attempts.succeeded(chunk.id);
        });
      },
      (ref) => work.unitName(ref),
      (ref) => ref.documentId,
    );
  }

  async #disambiguate(): Promise<MergeGroup[]> {
    const kb = this.#kb;
    // Entities without a name vector have never been compared; the checkpoint keeps those of an
    // interrupted run (their vectors are written before their pairs are decided).
    // Entities of pairs an earlier run left undecided come again, and that run's sampling is not repeated.
    const undecided = kb.getCheckpoint<{ ids: number[]; runs: number }>(UNDECIDED_DISAMBIGUATION);
    const queue = [
      ...new Set([
        ...(kb.getCheckpoint<number[]>(PENDING_DISAMBIGUATION) ?? []),
        ...(kb.getCheckpoint<number[]>(MERGED_PENDING_DISAMBIGUATION) ?? []),
        ...(undecided?.ids ?? []),
        ...kb.missingVectors('entity_name', ALL),
      ]),
    ].sort((a, b) => a - b);
    let result: MergeGroup[] = [];
    let left: number[] = [];
    await this.#stage('disambiguate', 0, async (_tick, setTotal) => {
      const store = this.#disambiguationStore();
      const outcome = await disambiguate(this.#llm, this.#options.embedder, store, queue, {
        ...this.#options.disambiguate,
        threshold: await this.#mergeThreshold(queue.length),
        prompts: this.#options.prompts,
        concurrency: this.#options.concurrency,
        sampling: samplingFor(undecided?.runs ?? 0),
        signal: this.#options.signal,
        onFailure: (f) => this.#fail('disambiguate', f),
        onProgress: (done, total) => setTotal(total, done),
      });
      result = outcome.merges;
      left = outcome.undecided.filter((id) => kb.getEntity(id) !== undefined);
    });
    kb.transaction(() => {
      kb.clearCheckpoints(PENDING_DISAMBIGUATION);
      kb.clearCheckpoints(MERGED_PENDING_DISAMBIGUATION);
      if (left.length > 0) kb.setCheckpoint(UNDECIDED_DISAMBIGUATION, { ids: left, runs: (undecided?.runs ?? 0) + 1 });
      else kb.clearCheckpoints(UNDECIDED_DISAMBIGUATION);
    });
    return result;
  }

  /** The name similarity from which Disambiguate asks about a pair: as set, the paper's, or the KB's calibrated one (measured first if due). */
  async #mergeThreshold(queued: number): Promise<number> {
    const { disambiguate: set, thresholds = 'calibrated', embedder, signal } = this.#options;
    if (set?.threshold !== undefined) return set.threshold;
    if (thresholds === 'paper' || queued === 0) return PAPER_THRESHOLDS.merge;
    return (await calibrateKb(this.#kb, embedder, signal ? { signal } : {})).mergeThreshold;
  }

  #disambiguationStore(): DisambiguationStore {
    const kb = this.#kb;
    const view = (e: EntityRecord | undefined): DisambiguationEntity | undefined =>
      e && { id: e.id, name: e.name, type: e.type, aliases: e.aliases };
    return {
      entity: (id) => view(kb.getEntity(id)),
      entityNamed: (name) => view(kb.findEntityByName(name)),
      lexicalNeighbours: (name, k) => kb.searchEntityNames(name, k).map((e) => view(e)!),
      variants: (id) => kb.getCheckpoint<string[]>(variantsKey(id)) ?? [],
      factCount: (id) => kb.countTriplesOfEntity(id),
      context: (id) => {
        const [triple] = kb.triplesOfEntity(id, 'both', 1);
        const chunk = triple?.chunkIds[0] === undefined ? undefined : kb.getChunk(triple.chunkIds[0]);
        return chunk ? (chunk.englishText ?? chunk.text) : (kb.getEntity(id)?.summary ?? '');
      },
      // An entity with a name vector is never queued again by missingVectors: until its round's
      // pairs are decided it stays pending in the checkpoint written with the vectors.
      setNameVectors: (ids, vectors) =>
        kb.transaction(() => {
          kb.putVectors(
            'entity_name',
            ids.map((id, i) => ({ id, vector: vectors[i]! })),
          );
          kb.setCheckpoint(PENDING_DISAMBIGUATION, ids);
          kb.clearCheckpoints(MERGED_PENDING_DISAMBIGUATION);
        }),
      nearest: (vector, k) => kb.knn('entity_name', vector, k),
      merge: (groups) =>
        kb.transaction(() => {
          const kept = groups.map((group) => {
            // The canonical name may already belong to another entity: that one is the same thing too.
            const holder = kb.findEntityByName(group.canonicalName);
            const ids = [...new Set([group.keepId, ...group.mergeIds, ...(holder ? [holder.id] : [])])].filter((id) =>
              kb.getEntity(id),
            );
            if (ids.length < 2) return ids[0] ?? group.keepId;
            // The KB drops the vectors of renamed entities and re-pointed triples.
            return kb.mergeEntities(group.canonicalName, ids);
          });
          // Kept entities are compared again in the next round, also after a restart.
          kb.setCheckpoint(MERGED_PENDING_DISAMBIGUATION, [
            ...(kb.getCheckpoint<number[]>(MERGED_PENDING_DISAMBIGUATION) ?? []),
            ...kept,
          ]);
          return kept;
        }),
    };
  }

  async #enrich(work: Work): Promise<void> {
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
      for (const t of kb.triplesOfChunks(ids.slice(start, start + ENRICH_PLAN_CHUNKS))) {
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
    await this.#units(
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
            other: kb.getChunks(others).map((c) => text(c)!),
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
          for (const t of described) kb.setTripleDescription(t.id, t.description);
          kb.deleteVectors(
            'triple',
            described.map((t) => t.id),
          );
          if (misses.length > 0) attempts.failed(chunkId);
          else attempts.succeeded(chunkId);
        });
        // Undescribed triples stay without a description (Reduce reads them verbalised) and are asked again by the next run.
        if (misses.length > 0)
          this.#fail(
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
    const stale = kb
      .listEntities({ stale: true, limit: ALL })
      .map((e) => ({ entity: e, triples: inSourceOrder(kb.triplesOfEntity(e.id, 'both', ALL)) }))
      .filter((e) => e.triples.length > 0)
      .sort((a, b) => a.entity.id - b.entity.id);
    // An entity with one described fact is summarised by that description and its type: a model would only rephrase it.
    const copied =
      options.copySingleFact === false
        ? []
        : stale.filter((e) => e.triples.length === 1 && e.triples[0]!.description !== null);
    kb.transaction(() =>
      copied.forEach((e) =>
        kb.setEntitySummary(e.entity.id, `${e.entity.name} (${e.entity.type}): ${e.triples[0]!.description!}`),
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
    await this.#units(
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
          for (const [id, summary] of summaries) kb.setEntitySummary(id, summary, { incomplete: incomplete.has(id) });
          // A hub's partial summaries hold what its capped summary could not: kept for answering (after the summary, which drops the old ones).
          for (const [id, written] of partials) kb.partialSummaries.replace(id, written);
          for (const id of ids(unit))
            if (incomplete.has(id)) attempts.failed(id);
            else attempts.succeeded(id);
        });
        // An entity left without a summary, or with one some of its facts did not reach, stays stale and is reduced again by the next run.
        if (misses.length > 0)
          this.#fail(
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
    await this.#stage('embed', plan.total, (tick) => plan.run(tick));
  }

  // ── plumbing ──────────────────────────────────────────────────────────────────

  /**
   * Runs the units of one stage concurrently; a unit whose model output stays invalid is
   * recorded (and attributed to its document when it has one) and the stage goes on.
   *
   * Anything else (a cancel, a crashed backend, a bug) stops the stage: `run` gets a signal that
   * then aborts, so sibling calls in flight stop too, and the stage rejects only after every unit
   * it started has settled. Each unit writes its result in one transaction after its model calls,
   * so a unit that was stopped wrote nothing and the job writes nothing once it has ended.
   */
  async #units<T>(
    stage: MderStage,
    units: readonly T[],
    run: (unit: T, signal: AbortSignal) => Promise<void>,
    name: (unit: T) => string,
    documentOf?: (unit: T) => number,
  ): Promise<void> {
    await this.#stage(stage, units.length, async (tick) => {
      const options = this.#options.signal ? { signal: this.#options.signal } : {};
      await mapConcurrent(
        units,
        this.#options.concurrency ?? this.#llm.parallelism,
        async (unit, _index, signal) => {
          throwIfAborted(signal);
          try {
            await run(unit, signal);
          } catch (error) {
            const failure = asUnitFailure(error, stage, name(unit));
            this.#fail(stage, failure, documentOf?.(unit));
          }
          tick();
        },
        options,
      );
    });
  }

  #fail(stage: MderStage, failure: UnitFailure, documentId?: number): void {
    this.#failures.push(failure);
    this.#stages[stage]!.failed++;
    const docId = documentId ?? (failure.details.documentId as number | undefined);
    if (docId !== undefined) this.#docFailures.set(docId, [...(this.#docFailures.get(docId) ?? []), failure]);
  }

  async #stage(
    stage: MderStage,
    total: number,
    body: (tick: (n?: number) => void, setTotal: (total: number, done: number) => void) => Promise<void>,
  ): Promise<void> {
    const meter = new UsageMeter();
    const stats: StageStats = { ...meter.snapshot(), units: total, failed: 0, wallMs: 0 };
    this.#stages[stage] = stats;
    this.#llm.meter = meter;
    const started = performance.now();
    const interval = this.#options.progressIntervalMs ?? 250;
    let done = 0;
    let lastEmit = -Infinity;
    const emit = (force: boolean): void => {
      const now = performance.now();
      if (!this.#options.onProgress || (!force && now - lastEmit < interval)) return;
      lastEmit = now;
      Object.assign(stats, meter.snapshot());
      const seconds = (now - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      this.#options.onProgress({
        stage,
        done,
        total: stats.units,
        rate,
        etaSeconds: rate > 0 ? Math.max(0, stats.units - done) / rate : null,
        message: stats.failed > 0 ? `${stats.failed} failed` : '',
        llmCalls: stats.calls,
        promptTokens: stats.promptTokens,
        completionTokens: stats.completionTokens,
        cacheHits: stats.cacheHits,
      });
    };
    emit(true);
    await body(
      (n = 1) => {
        done += n;
        emit(done === stats.units);
      },
      (newTotal, newDone) => {
        stats.units = newTotal;
        done = newDone;
        emit(false);
      },
    );
    Object.assign(stats, meter.snapshot(), { wallMs: performance.now() - started });
    emit(true);
  }
}

/** A chunk of the run without its text: the text is read from the KB when a unit needs it. */
interface ChunkRef {
  readonly id: number;
  readonly documentId: number;
  readonly ord: number;
  /** Has its summary and English text. */
  preprocessed: boolean;
}

/**
 * The documents and chunks one run works on, with per-document chunk order for windowed context.
 * Only references stay in memory (texts would grow with the corpus: ~800 MB at 20,000 documents).
 */
class Work {
  readonly chunks: ChunkRef[] = [];
  readonly #kb: KnowledgeBase;
  readonly #docs: Map<number, DocumentRecord>;
  readonly #byDoc = new Map<number, ChunkRef[]>();
  readonly #byId = new Map<number, ChunkRef>();

  constructor(kb: KnowledgeBase, docs: readonly DocumentRecord[]) {
    this.#kb = kb;
    this.#docs = new Map(docs.map((d) => [d.id, d]));
    for (const d of docs) {
      const refs = kb
        .chunksOfDocument(d.id)
        .sort((a, b) => a.ord - b.ord)
        .map((c): ChunkRef => ({
          id: c.id,
          documentId: c.documentId,
          ord: c.ord,
          preprocessed: c.englishText !== null,
        }));
      this.#byDoc.set(d.id, refs);
      for (const ref of refs) {
        this.chunks.push(ref);
        this.#byId.set(ref.id, ref);
      }
    }
  }

  ref(id: number): ChunkRef {
    return this.#byId.get(id)!;
  }

  /** The chunk as stored now; NOT_FOUND if it was deleted while the job ran (the unit fails, the job goes on). */
  load(ref: ChunkRef): ChunkRecord {
    const chunk = this.#kb.getChunk(ref.id);
    if (!chunk)
      throw new PolyhopError('NOT_FOUND', `${this.unitName(ref)} was deleted while indexing`, {
        details: { chunkId: ref.id },
      });
    return chunk;
  }

  document(ref: ChunkRef): DocumentRecord {
    return this.#docs.get(ref.documentId)!;
  }

  neighbours(ref: ChunkRef): { previous: ChunkRecord | null; next: ChunkRecord | null } {
    const list = this.#byDoc.get(ref.documentId)!;
    const i = list.indexOf(ref);
    const at = (j: number): ChunkRecord | null => (list[j] ? (this.#kb.getChunk(list[j].id) ?? null) : null);
    return { previous: at(i - 1), next: at(i + 1) };
  }

  unitName(ref: ChunkRef): string {
    return `chunk ${ref.ord} of "${this.document(ref).path}"`;
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
