import { raceAbort } from '../../base/abort.js';
import type {
  ChunkRecord,
  EntityRecord,
  PartialSummaryRecord,
  ScoredId,
  TextIndexKind,
  TripleRecord,
  VectorKind,
} from '../../kb/types.js';
import { verbaliseTriple } from '../../kb/verbaliseTriple.js';
import { entityKey } from '../../kb/entityKey.js';
import { englishTextOf } from '../../kb/chunkCorpora.js';
import type { Embedder } from '../../models/Embedder.js';
import type { EvidenceItem } from '../EvidencePool.js';
import type { QaKb } from '../types.js';
import { bm25Query } from './bm25Query.js';
import { reciprocalRankFusion } from './reciprocalRankFusion.js';

/** The name without a trailing "(…)" (a type or an alias copied from a candidate label), or null when there is none. */
export function withoutParenthetical(value: string): string | null {
  const m = /^(.*\S)\s*\([^()]*\)$/su.exec(value.trim());
  return m ? (m[1] as string) : null;
}

/** Fused ranking with the two lists it came from (the trace shows all three). */
export interface HybridRanking {
  fused: ScoredId[];
  dense: ScoredId[];
  sparse: ScoredId[];
}

/** Nearest names a value's spelling is compared with when it names no entity exactly. */
const GROUNDING_NEIGHBOURS = 3;
/** Trigram overlap (Dice) of accent- and case-folded spellings above which a value is taken to misspell a name. */
const CLOSE_SPELLING = 0.6;

/** Dice coefficient of the padded character trigrams of two names, accents and case folded. */
export function spellingSimilarity(a: string, b: string): number {
  const grams = (text: string): Map<string, number> => {
    const t = ` ${entityKey(text.normalize('NFKD').replace(/\p{M}+/gu, ''))} `;
    const m = new Map<string, number>();
    for (let i = 0; i + 3 <= t.length; i++) m.set(t.slice(i, i + 3), (m.get(t.slice(i, i + 3)) ?? 0) + 1);
    return m;
  };
  const ga = grams(a);
  const gb = grams(b);
  let shared = 0;
  let total = 0;
  for (const [g, n] of ga) {
    shared += Math.min(n, gb.get(g) ?? 0);
    total += n;
  }
  for (const n of gb.values()) total += n;
  return total === 0 ? 0 : (2 * shared) / total;
}

/** Whether one spelling is taken to misspell the other (grounding a value, finding the summaries that state it). */
export function spelledAlike(a: string, b: string): boolean {
  return spellingSimilarity(a, b) >= CLOSE_SPELLING;
}

/** Provenance chunks looked up per entity for a summary's citations. */
const ENTITY_PROVENANCE_TRIPLES = 50;

/**
 * The retrieval primitives every strategy shares: KNN over entity names, entity summaries, chunks
 * and verbalised triples; BM25 over chunks and triples; reciprocal rank fusion of the two; and
 * the turning of KB rows into evidence. Query embeddings are cached per question.
 */
export class Retriever {
  readonly #kb: QaKb;
  readonly #embedder: Embedder;
  readonly #rrfK: number;
  readonly #signal: AbortSignal | undefined;
  readonly #vectors = new Map<string, Promise<Float32Array>>();
  readonly #titles = new Map<number, string>();

  constructor(kb: QaKb, embedder: Embedder, rrfK: number, signal?: AbortSignal) {
    this.#kb = kb;
    this.#embedder = embedder;
    this.#rrfK = rrfK;
    this.#signal = signal;
  }

  /** Embeds several query texts in one batch (fills the cache). */
  async prepare(texts: readonly string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => !this.#vectors.has(t));
    if (missing.length === 0) return;
    const batch = raceAbort(this.#embedder.embed(missing, { purpose: 'query', signal: this.#signal }), this.#signal);
    missing.forEach((t, i) =>
      this.#vectors.set(
        t,
        batch.then((v) => v[i] as Float32Array),
      ),
    );
    await batch;
  }

  async embed(text: string): Promise<Float32Array> {
    await this.prepare([text]);
    return this.#vectors.get(text) as Promise<Float32Array>;
  }

  async knn(kind: VectorKind, text: string, k: number): Promise<ScoredId[]> {
    if (k <= 0) return [];
    return this.#kb.vectors.knn(kind, await this.embed(text), k);
  }

  /** {@link knn} of each text, the codes scanned once for several texts (see VectorIndexRepository.knnOfEach). */
  async knnOfEach(kind: VectorKind, texts: readonly string[], k: number): Promise<ScoredId[][]> {
    if (k <= 0) return texts.map(() => []);
    await this.prepare(texts);
    return this.#kb.vectors.knnOfEach(kind, await Promise.all(texts.map((t) => this.embed(t))), k);
  }

  /** BM25 over the text's content words (see {@link bm25Query}). */
  bm25(kind: TextIndexKind, text: string, k: number): ScoredId[] {
    return k <= 0 || !text.trim() ? [] : this.#kb.textIndex.bm25(kind, bm25Query(text), k);
  }

  /**
   * Dense and BM25 top-`k` each, fused by reciprocal rank and cut to `k`. `chunk` is the English
   * corpus, `chunk_original` the chunks as written (see kb/chunkCorpora.ts and {@link originalKnn}).
   */
  async hybrid(kind: TextIndexKind, text: string, k: number): Promise<HybridRanking> {
    const dense = kind === 'chunk_original' ? await this.originalKnn(text, k) : await this.knn(kind, text, k);
    return this.#fused(dense, this.bm25(kind, text, k), k);
  }

  /** {@link hybrid} of each text, their dense searches done together (see {@link knnOfEach}). */
  async hybridOfEach(
    kind: Exclude<TextIndexKind, 'chunk_original'>,
    texts: readonly string[],
    k: number,
  ): Promise<HybridRanking[]> {
    const dense = await this.knnOfEach(kind, texts, k);
    return texts.map((text, i) => this.#fused(dense[i] as ScoredId[], this.bm25(kind, text, k), k));
  }

  #fused(dense: ScoredId[], sparse: ScoredId[], k: number): HybridRanking {
    return { fused: reciprocalRankFusion([dense, sparse], this.#rrfK).slice(0, k), dense, sparse };
  }

  /**
   * Dense top-`k` over the chunks as written: non-English chunks by their original-language
   * vectors, English chunks by their one vector, merged by cosine (one embedder, so comparable).
   * While non-English chunks lack original-language vectors ({@link missingOriginalVectors}: a KB
   * indexed before they existed, until re-embedded) every chunk is ranked by its English vector.
   */
  async originalKnn(text: string, k: number): Promise<ScoredId[]> {
    if (k <= 0) return [];
    const vector = await this.embed(text);
    if (this.missingOriginalVectors() > 0) return this.#kb.vectors.knn('chunk', vector, k);
    const merged = [
      ...this.#kb.vectors.knn('chunk_original', vector, k),
      ...this.#kb.vectors.knn('chunk', vector, k, { englishChunksOnly: true }),
    ];
    return merged.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
  }

  /** Non-English chunks without an original-language vector yet (see VectorIndexRepository.countMissingOriginalVectors). */
  missingOriginalVectors(): number {
    return this.#kb.vectors.countMissingOriginalVectors();
  }

  async entitiesByName(text: string, k: number): Promise<{ entity: EntityRecord; score: number }[]> {
    return this.#withRows(await this.knn('entity_name', text, k), (ids) => this.#kb.graph.getEntities(ids)).map(
      ({ row, score }) => ({ entity: row, score }),
    );
  }

  /** The entity a name or alias names exactly (an index lookup). */
  findEntity(name: string): EntityRecord | undefined {
    return this.#kb.graph.findEntityByName(name);
  }

  /**
   * The entities a known term names: the one it names exactly (name or alias, also without a
   * copied "(Type)"), with score 1, then the nearest names. An alias the model wrote ("Ulysses")
   * finds its entity even where the embedder crowds every name together.
   */
  async namedEntities(name: string, k: number): Promise<{ entity: EntityRecord; score: number }[]> {
    const exact = this.#exact(name);
    const near = (await this.entitiesByName(withoutParenthetical(name) ?? name, k)).filter(
      (c) => c.entity.id !== exact?.id,
    );
    return [...(exact ? [{ entity: exact, score: 1 }] : []), ...near].slice(0, k);
  }

  /**
   * The entity a resolved value stands for, or none: an exact name or alias match, else the same
   * without a copied "(Type)" suffix ("Odysseus (Person)"), else among the nearest names the one
   * spelled closest, if it is close ("Odysseas" → Odysseus). A date, a number or a phrase grounds
   * in nothing rather than in whatever entity is nearest.
   */
  async groundEntity(name: string): Promise<{ entity: EntityRecord; score: number }[]> {
    const exact = this.#exact(name);
    if (exact) return [{ entity: exact, score: 1 }];
    const value = withoutParenthetical(name) ?? name;
    const near = (await this.entitiesByName(value, GROUNDING_NEIGHBOURS))
      .filter((c) => spelledAlike(value, c.entity.name))
      .map((c) => ({ ...c, spelling: spellingSimilarity(value, c.entity.name) }));
    const best = near.sort((a, b) => b.spelling - a.spelling)[0];
    return best ? [{ entity: best.entity, score: best.score }] : [];
  }

  #exact(name: string): EntityRecord | undefined {
    const bare = withoutParenthetical(name);
    return this.#kb.graph.findEntityByName(name) ?? (bare === null ? undefined : this.#kb.graph.findEntityByName(bare));
  }

  async entitiesBySummary(text: string, k: number): Promise<{ entity: EntityRecord; score: number }[]> {
    const hits = this.#withRows(await this.knn('entity_summary', text, k), (ids) => this.#kb.graph.getEntities(ids));
    return hits.filter((h) => h.row.summary).map(({ row, score }) => ({ entity: row, score }));
  }

  /**
   * Partial summaries of these entities nearest the text, at most `perEntity` each, in the
   * entities' order: a hub entity's facts its capped summary may have left out (see
   * kb/PartialSummaryRepository.ts).
   */
  async partialsOf(
    entities: readonly EntityRecord[],
    text: string,
    perEntity: number,
  ): Promise<Map<number, { partial: PartialSummaryRecord; score: number }[]>> {
    const out = new Map<number, { partial: PartialSummaryRecord; score: number }[]>();
    if (perEntity <= 0 || entities.length === 0) return out;
    const store = this.#kb.partialSummaries;
    const ranking = store.nearestOf(
      entities.map((e) => e.id),
      await this.embed(text),
      perEntity * entities.length * 4,
    );
    for (const { row, score } of this.#withRows(ranking, (ids) => store.get(ids))) {
      const list = out.get(row.entityId) ?? [];
      if (list.length < perEntity) out.set(row.entityId, [...list, { partial: row, score }]);
    }
    return out;
  }

  /**
   * Summaries nearest the text, entity summaries and hub entities' partial summaries together
   * (one embedder, so their cosines compare), best first; a partial stands for its entity.
   */
  async summariesByText(text: string, k: number): Promise<EvidenceItem[]> {
    if (k <= 0) return [];
    const whole = (await this.entitiesBySummary(text, k)).map((h) => this.summaryEvidence(h.entity, h.score));
    const store = this.#kb.partialSummaries;
    const partials = this.#withRows(await this.knn('entity_partial', text, k), (ids) => store.get(ids));
    const owners = new Map(this.#kb.graph.getEntities(partials.map((p) => p.row.entityId)).map((e) => [e.id, e]));
    const parts = partials.flatMap(({ row, score }) => {
      const entity = owners.get(row.entityId);
      return entity ? [this.partialEvidence(row, entity, score)] : [];
    });
    return [...whole, ...parts].sort((a, b) => b.score - a.score).slice(0, k);
  }

  chunks(ranking: readonly ScoredId[]): { chunk: ChunkRecord; score: number }[] {
    return this.#withRows(ranking, (ids) => this.#kb.documents.getChunks(ids)).map(({ row, score }) => ({
      chunk: row,
      score,
    }));
  }

  triples(ranking: readonly ScoredId[]): { triple: TripleRecord; score: number }[] {
    return this.#withRows(ranking, (ids) => this.#kb.graph.getTriples(ids)).map(({ row, score }) => ({
      triple: row,
      score,
    }));
  }

  // ── evidence ───────────────────────────────────────────────────────────────

  /** An entity's MDER summary; cited by the chunks its triples were read from. */
  summaryEvidence(entity: EntityRecord, score: number): EvidenceItem {
    const chunkIds = new Set<number>();
    for (const t of this.#kb.graph.triplesOfEntity(entity.id, 'both', ENTITY_PROVENANCE_TRIPLES))
      for (const c of t.chunkIds) chunkIds.add(c);
    return {
      kind: 'summary',
      id: entity.id,
      label: `${entity.name} (${entity.type})`,
      text: entity.summary ?? '',
      score,
      chunkIds: [...chunkIds],
    };
  }

  /**
   * A hub entity's partial summary: evidence about the entity, labelled with the facts it covers
   * and cited by the chunks of those facts' triples (the entity's, for a partial written before
   * they were kept).
   */
  partialEvidence(partial: PartialSummaryRecord, entity: EntityRecord, score: number): EvidenceItem {
    const chunkIds = partial.tripleIds && [
      ...new Set(this.#kb.graph.getTriples(partial.tripleIds).flatMap((t) => t.chunkIds)),
    ];
    return {
      ...this.summaryEvidence(entity, score),
      ...(chunkIds ? { chunkIds } : {}),
      part: partial.id,
      label: `${entity.name} (${entity.type}), facts ${partial.firstFact}–${partial.lastFact} of ${partial.factCount}`,
      text: partial.text,
    };
  }

  /** A KB triple as linear verbalisation plus its MDER description when it has one. */
  tripleEvidence(triple: TripleRecord, score: number): EvidenceItem {
    const label = verbaliseTriple(triple.sourceName, triple.relation, triple.targetName);
    const text = triple.description ? `${label}. ${triple.description}` : label;
    return { kind: 'triple', id: triple.id, label, text, score, chunkIds: triple.chunkIds };
  }

  /** A chunk's text as written, or in English (`english`: see kb/chunkCorpora.ts), labelled "title #ord". */
  chunkEvidence(chunk: ChunkRecord, score: number, english = false): EvidenceItem {
    const text = english ? englishTextOf(chunk) : chunk.text;
    return {
      kind: 'chunk',
      id: chunk.id,
      label: `${this.documentTitle(chunk.documentId)} #${chunk.ord + 1}`,
      text,
      score,
      chunkIds: [chunk.id],
    };
  }

  documentTitle(documentId: number): string {
    let title = this.#titles.get(documentId);
    if (title === undefined) {
      title = this.#kb.documents.getDocument(documentId)?.title ?? `document ${documentId}`;
      this.#titles.set(documentId, title);
    }
    return title;
  }

  /** Rows of a ranking, in ranking order; ids whose row is gone are skipped. */
  #withRows<R extends { id: number }>(
    ranking: readonly ScoredId[],
    load: (ids: number[]) => R[],
  ): { row: R; score: number }[] {
    const rows = new Map(load(ranking.map((r) => r.id)).map((r) => [r.id, r]));
    const out: { row: R; score: number }[] = [];
    for (const { id, score } of ranking) {
      const row = rows.get(id);
      if (row) out.push({ row, score });
    }
    return out;
  }
}
