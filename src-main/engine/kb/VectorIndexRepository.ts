import { PolyhopError } from '../base/errors.js';
import { sqlNotEnglish } from '../base/englishLanguage.js';
import type { MetaRepository } from './MetaRepository.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { BinaryIndex } from './utils/BinaryIndex.js';
import { bytesOf, VectorCentres, type RecentreStep } from './VectorCentres.js';
import type { EmbedderRecord, ScoredId, SimilarityCalibration, VectorKind } from './types.js';

export interface KnnOptions {
  /** Full float scan instead of the binary prefilter + float rerank (ground truth for benchmarks). Default: false. */
  exact?: boolean;
  /**
   * Candidates taken from the binary prefilter per wanted result, before the float rerank. Default:
   * {@link DEFAULT_OVERSAMPLE}. Filtered searches (`englishChunksOnly`) get as many that pass the
   * filter: it is applied inside the prefilter.
   */
  oversample?: number;
  /**
   * `chunk` only: rank English chunks alone (their English vector also stands for their text as
   * written, see chunkCorpora.ts). The prefilter skips the others. Default: false.
   */
  englishChunksOnly?: boolean;
}

/** Prefilter candidates per wanted result (see {@link KnnOptions.oversample}). */
export const DEFAULT_OVERSAMPLE = 80;

const VECTOR_OWNERS: Record<VectorKind, string> = {
  chunk: 'chunks',
  chunk_original: 'chunks',
  entity_name: 'entities',
  entity_summary: 'entities',
  entity_partial: 'entity_partials',
  triple: 'triples',
  passage: 'passages',
};
/** What a row of each vector owner table is called in errors. */
const ROW_NAMES: Record<string, string> = {
  chunks: 'chunk',
  entities: 'entity',
  triples: 'triple',
  passages: 'passage',
  entity_partials: 'partial summary',
};
export const VECTOR_KINDS = Object.keys(VECTOR_OWNERS) as VectorKind[];

/** Sign-bit codes read per query when an in-memory index is loaded (a few MB of hex text each). */
const CODE_PAGE_ROWS = 65_536;

/**
 * The embedder record and the vectors of every kind: float blobs (vec_*, compared with sqlite-vec's
 * cosine) and their sign-bit codes (vcode_*), searched through an in-memory Hamming index per kind
 * (utils/BinaryIndex.ts) whose candidates are reranked on the floats. Each kind's generation
 * (vector_state) tells a loaded index whether another connection changed the codes.
 *
 * Codes are the signs of v − centre, the centre being the kind's mean vector (vector_state.centre),
 * because real embeddings are anisotropic: e5's share a large mean direction (cosines of unrelated
 * texts around 0.7–0.8), so plain sign bits are mostly that direction's and carry little about the
 * text. On vectors like that (24k × 384, mean cosine 0.78: test/unit/kb/vectorCentres.test.ts),
 * recall@10 at oversample 80 went from 0.89 with plain sign bits to 0.99. The centre is recomputed
 * and every code rewritten when the count has doubled since (VectorCentres.ts): by the write or
 * search that finds it due in a small family, in one transaction; in a large one (or a KB whose
 * codes predate centring, 0015) by the upgrade job's {@link recentreStep}s, searches meanwhile
 * using the live codes and centre.
 */
export class VectorIndexRepository {
  readonly #context: RepositoryContext;
  readonly #meta: MetaRepository;
  /** In-memory sign-bit codes per vector kind, loaded on first search; dropped on any rollback. */
  readonly #binary = new Map<VectorKind, BinaryIndex>();
  readonly #centres: VectorCentres;

  constructor(context: RepositoryContext, meta: MetaRepository) {
    this.#context = context;
    this.#meta = meta;
    this.#centres = new VectorCentres(context, (kind) => {
      this.#bumpGeneration(kind);
      this.#binary.delete(kind);
    });
  }

  /** Drops the in-memory indexes (after a rollback or on close); they reload on next use. */
  forgetLoaded(): void {
    this.#binary.clear();
  }

  embedder(): EmbedderRecord | null {
    const value = this.#meta.value('embedder');
    return value === undefined ? null : (JSON.parse(value) as EmbedderRecord);
  }

  /**
   * Records the embedder whose vectors this KB holds. When it differs from the recorded one, every
   * stored vector is dropped (they are not comparable): this is how a KB is re-embedded.
   */
  setEmbedder(identity: string, dimension: number): void {
    if (!identity || !Number.isInteger(dimension) || dimension < 1 || dimension > 8192) {
      throw new PolyhopError(
        'BAD_INPUT',
        `${this.#context.file}: embedder needs an identity and a dimension in 1..8192 (got "${identity}", ${dimension})`,
      );
    }
    const current = this.embedder();
    if (current?.identity === identity && current.dimension === dimension) return;
    this.#context.transaction(() => {
      this.clearKinds(VECTOR_KINDS);
      this.#meta.setValue('embedder', JSON.stringify({ identity, dimension } satisfies EmbedderRecord));
    });
    this.#binary.clear();
  }

  /**
   * Sets the embedder when none is recorded; throws CONFLICT (offering re-embedding) when another
   * identity or dimension is recorded.
   */
  assertEmbedder(identity: string, dimension: number): void {
    const current = this.embedder();
    if (!current) return this.setEmbedder(identity, dimension);
    if (current.identity === identity && current.dimension === dimension) return;
    throw new PolyhopError(
      'CONFLICT',
      `Knowledge base "${this.#context.name()}" was embedded with ${current.identity} (${current.dimension} dimensions), not ${identity} (${dimension}). ` +
        `Load ${current.identity} again, or re-embed the knowledge base with ${identity} (\`polyhop kb reembed\`, ` +
        'or Re-embed on the Corpus screen: its vectors are rebuilt; documents, entities and triples are kept).',
      { details: { recorded: current, offered: { identity, dimension }, remedy: 're-embed' } },
    );
  }

  /** The similarity calibration recorded for the KB's current embedder, or null (none yet, or made with another embedder). */
  similarityCalibration(): SimilarityCalibration | null {
    const value = this.#meta.value('similarityCalibration');
    const calibration = value === undefined ? null : (JSON.parse(value) as SimilarityCalibration);
    return calibration && calibration.embedder === this.embedder()?.identity ? calibration : null;
  }

  /** Records a calibration (it is given, never computed here: the KB calls no model). */
  setSimilarityCalibration(calibration: SimilarityCalibration): void {
    this.#meta.setValue('similarityCalibration', JSON.stringify(calibration));
  }

  /**
   * Stores (replaces) vectors of `kind`. Needs a recorded embedder; each vector must have its
   * dimension (CONFLICT otherwise), be finite and non-zero (BAD_INPUT), and belong to an existing
   * row (NOT_FOUND). Vectors are L2-normalised on the way in.
   */
  putVectors(kind: VectorKind, items: readonly { id: number; vector: Float32Array }[]): void {
    const owner = vectorOwner(kind);
    const dimension = this.#requireEmbedder().dimension;
    const prepared = items.map(({ id, vector }) => {
      if (vector.length !== dimension) {
        throw new PolyhopError(
          'CONFLICT',
          `${kind} vector for ${id} has ${vector.length} dimensions; this knowledge base holds ${dimension}`,
          {
            details: { kind, id, dimension: vector.length, expected: dimension },
          },
        );
      }
      const unit = normalised(vector);
      if (!unit)
        throw new PolyhopError('BAD_INPUT', `${kind} vector for ${id} is zero or not finite`, {
          details: { kind, id },
        });
      return { id, unit };
    });
    this.#context.transaction(() => {
      const index = this.#currentIndex(kind);
      const state = this.#centres.state(kind);
      const other = state.live === 'code' ? 'code_alt' : 'code';
      const putVector = this.#stmt(`INSERT OR REPLACE INTO vec_${kind} (id, vector) VALUES (?, ?)`);
      const putCode = this.#stmt(`INSERT OR REPLACE INTO vcode_${kind} (id, ${state.live}, ${other}) VALUES (?, ?, ?)`);
      const codes = prepared.map((item) => {
        if (!this.#context.exists(owner, item.id)) throw this.#context.notFound(ROW_NAMES[owner] ?? owner, item.id);
        const code = this.#centres.codesOf(state, item.unit);
        putVector.run(item.id, bytesOf(item.unit));
        putCode.run(item.id, code.live, code.other);
        return code.live;
      });
      const generation = this.#bumpGeneration(kind);
      if (!this.#centres.recentreIfSmall(kind, dimension, state.centredAt) && index) {
        prepared.forEach((item, i) => index.set(item.id, codes[i] as Buffer));
        index.generation = generation;
      }
    });
  }

  deleteVectors(kind: VectorKind, ids: readonly number[]): void {
    vectorOwner(kind);
    this.#context.transaction(() => this.deleteRows(kind, ids));
  }

  /** @internal Deletes the vectors of `ids` within the caller's transaction (the graph's and documents' removals). */
  deleteRows(kind: VectorKind, ids: readonly number[]): void {
    if (ids.length === 0) return;
    const index = this.#currentIndex(kind);
    const json = JSON.stringify(ids);
    this.#stmt(`DELETE FROM vec_${kind} WHERE id IN (SELECT value FROM json_each(?))`).run(json);
    this.#stmt(`DELETE FROM vcode_${kind} WHERE id IN (SELECT value FROM json_each(?))`).run(json);
    const generation = this.#bumpGeneration(kind);
    if (index) {
      for (const id of ids) index.delete(id);
      index.generation = generation;
    }
  }

  /** @internal Deletes every vector of `kinds`, whole tables at once, within the caller's transaction. */
  clearKinds(kinds: readonly VectorKind[]): void {
    for (const kind of kinds) {
      this.#context.db.exec(`DELETE FROM vec_${kind}; DELETE FROM vcode_${kind};`);
      // The next vectors may come from another embedder, with a mean of their own.
      this.#centres.reset(kind);
      this.#bumpGeneration(kind);
      this.#binary.delete(kind);
    }
  }

  /**
   * The `k` nearest rows of `kind` by cosine similarity (score = cosine, higher is better).
   * Sign-bit codes pick `k × oversample` candidates (Hamming distance on their first 128 bits over
   * large sets, then the float query's dot product with the ±1 codes), which are reranked exactly
   * on their float vectors; `exact` scans every float vector instead. Empty when no embedder is set.
   */
  knn(kind: VectorKind, query: Float32Array, k: number, options: KnnOptions = {}): ScoredId[] {
    return this.knnOfEach(kind, [query], k, options)[0] as ScoredId[];
  }

  /** {@link knn} of each query, with one pass over the sign-bit codes for several queries. */
  knnOfEach(kind: VectorKind, queries: readonly Float32Array[], k: number, options: KnnOptions = {}): ScoredId[][] {
    vectorOwner(kind);
    const embedder = this.embedder();
    if (!embedder || k <= 0) return queries.map(() => []);
    for (const query of queries) {
      if (query.length !== embedder.dimension) {
        throw new PolyhopError(
          'CONFLICT',
          `Query vector has ${query.length} dimensions; this knowledge base holds ${embedder.dimension} (${embedder.identity})`,
          {
            details: { dimension: query.length, expected: embedder.dimension },
          },
        );
      }
    }
    if (options.englishChunksOnly && kind !== 'chunk')
      throw new PolyhopError('BAD_INPUT', `englishChunksOnly applies to chunk vectors, not ${kind}`);
    // A point lookup per candidate in the partial index of non-English chunks.
    const filter = options.englishChunksOnly
      ? `AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.id AND ${sqlNotEnglish('c.language')})`
      : '';
    const units = queries.map(normalised);
    const usable = units.filter((u): u is Float32Array => u !== null);
    let candidates: number[][] = [];
    if (!options.exact && usable.length > 0) {
      const index = this.#loadedIndex(kind, embedder.dimension);
      candidates = index.candidatesOfEach(
        usable.map((u) => index.encodeQuery(u)),
        Math.max(k, Math.ceil(k * (options.oversample ?? DEFAULT_OVERSAMPLE))),
        { floats: usable, exclude: options.englishChunksOnly ? this.#nonEnglishChunks() : undefined },
      );
    }
    let next = 0;
    return units.map((unit) => {
      if (!unit) return [];
      const blob = bytesOf(unit);
      let rows: { id: number; distance: number }[];
      if (options.exact) {
        rows = this.#stmt(
          `SELECT id, vec_distance_cosine(vector, ?) AS distance FROM vec_${kind} v WHERE 1 ${filter} ORDER BY distance, id LIMIT ?`,
        ).all(blob, k) as typeof rows;
      } else {
        rows = this.#stmt(
          `SELECT id, vec_distance_cosine(vector, ?) AS distance FROM vec_${kind} v
           WHERE id IN (SELECT value FROM json_each(?)) ${filter} ORDER BY distance, id LIMIT ?`,
        ).all(blob, JSON.stringify(candidates[next++]), k) as typeof rows;
      }
      return rows.map((r) => ({ id: r.id, score: 1 - r.distance }));
    });
  }

  /** Whether `kind` has a recentre due or begun that {@link recentreStep} is to do (the KB upgrade job). */
  recentrePending(kind: VectorKind): boolean {
    vectorOwner(kind);
    return this.embedder() !== null && this.#centres.pending(kind);
  }

  /**
   * One batch (`rows` vectors, one transaction) of `kind`'s recentre: the mean, then the codes
   * around it in the column not searched; the last one makes them live. A kill loses one batch.
   */
  recentreStep(kind: VectorKind, rows?: number): RecentreStep {
    vectorOwner(kind);
    return this.#centres.step(kind, this.#requireEmbedder().dimension, rows);
  }

  /** Ids of `kind` rows without a vector yet, by id, after id `after`: what an embedding stage still has to do, a page at a time. */
  missingVectors(kind: VectorKind, limit = 1000, after = 0): number[] {
    return this.#stmt(`SELECT o.id ${missingVectorsFrom(kind)} AND o.id > ? ORDER BY o.id LIMIT ?`)
      .pluck()
      .all(after, limit) as number[];
  }

  /**
   * Non-English chunks embedded in English but without an original-language vector: a KB indexed
   * before that family existed (migration 0005), or a re-embed cut short. The next Index or
   * Re-embed job makes them. Cached until chunks or either family's vectors change.
   */
  countMissingOriginalVectors(): number {
    const generations = `${this.#generation('chunk')}:${this.#generation('chunk_original')}`;
    return this.#context.derive(
      `missingOriginalVectors:${generations}`,
      () =>
        this.#stmt(
          `SELECT COUNT(*) FROM chunks o WHERE ${sqlNotEnglish('o.language')} AND EXISTS (SELECT 1 FROM vec_chunk v WHERE v.id = o.id)
           AND NOT EXISTS (SELECT 1 FROM vec_chunk_original v WHERE v.id = o.id)`,
        )
          .pluck()
          .get() as number,
    );
  }

  /** How many `kind` rows (every kind when omitted) have no vector yet. */
  countMissingVectors(kind?: VectorKind): number {
    if (!kind) return VECTOR_KINDS.reduce((n, k) => n + this.countMissingVectors(k), 0);
    return this.#stmt(`SELECT COUNT(*) ${missingVectorsFrom(kind)}`)
      .pluck()
      .get() as number;
  }

  /** Stored vectors per kind. */
  counts(): Record<VectorKind, number> {
    return Object.fromEntries(
      VECTOR_KINDS.map((kind) => [kind, this.#stmt(`SELECT COUNT(*) FROM vcode_${kind}`).pluck().get() as number]),
    ) as Record<VectorKind, number>;
  }

  /** Ids of the non-English chunks (the English-only filter, applied inside the prefilter); cached until the KB changes. */
  #nonEnglishChunks(): ReadonlySet<number> {
    return this.#context.derive(
      'nonEnglishChunks',
      () =>
        new Set(
          this.#stmt(`SELECT id FROM chunks c WHERE ${sqlNotEnglish('c.language')}`)
            .pluck()
            .all() as number[],
        ),
    );
  }

  #stmt(sql: string) {
    return this.#context.statements.get(sql);
  }

  #requireEmbedder(): EmbedderRecord {
    const embedder = this.embedder();
    if (!embedder)
      throw new PolyhopError(
        'CONFLICT',
        `Knowledge base "${this.#context.name()}" has no embedder recorded yet; set one before storing vectors`,
      );
    return embedder;
  }

  /** Every vector write bumps its kind's generation, so other connections' in-memory indexes notice. */
  #bumpGeneration(kind: VectorKind): number {
    return this.#stmt('UPDATE vector_state SET generation = generation + 1 WHERE kind = ? RETURNING generation')
      .pluck()
      .get(kind) as number;
  }

  #generation(kind: VectorKind): number {
    return this.#stmt('SELECT generation FROM vector_state WHERE kind = ?').pluck().get(kind) as number;
  }

  /** The loaded index of `kind` if it reflects the stored rows (so writes can update it in place); else drops it. */
  #currentIndex(kind: VectorKind): BinaryIndex | undefined {
    const index = this.#binary.get(kind);
    if (index && index.generation === this.#generation(kind)) return index;
    this.#binary.delete(kind);
    return undefined;
  }

  #loadedIndex(kind: VectorKind, dimension: number): BinaryIndex {
    const current = this.#currentIndex(kind);
    if (current && current.words === Math.ceil(dimension / 32)) return current;
    // A small family's codes written before centring existed (or before the count doubled) are
    // recentred here, on the first search, when this connection may write; a large one's are the
    // upgrade job's. A recode that fails (a busy or full disk) rolls back and the search goes on
    // with the codes as they are, consistent with their centre.
    if (!this.#context.db.readonly) {
      try {
        this.#centres.recentreIfSmall(kind, dimension);
      } catch (error) {
        if (!String((error as { code?: unknown }).code).startsWith('SQLITE_')) throw error;
      }
    }
    const { centre, live } = this.#centres.state(kind);
    const index = new BinaryIndex(dimension, this.#generation(kind), centre);
    // Codes come concatenated by SQLite, a page of ids per round trip: reading them row by row cost
    // ~6 µs a row in better-sqlite3 (6.2 s for the first search at 1M vectors). Both aggregates
    // read the same ordered rows, so ids and codes line up.
    const page = this.#stmt(
      `SELECT unhex(group_concat(hex(code), '')) AS codes, json_group_array(id) AS ids, max(id) AS last, COUNT(*) AS count
       FROM (SELECT id, ${live} AS code FROM vcode_${kind} WHERE id > ? ORDER BY id LIMIT ${CODE_PAGE_ROWS})`,
    );
    for (let after = 0; ;) {
      const { codes, ids, last, count } = page.get(after) as {
        codes: Buffer | null;
        ids: string;
        last: number | null;
        count: number;
      };
      if (count === 0 || codes === null || last === null) break;
      index.append(JSON.parse(ids) as number[], codes);
      if (count < CODE_PAGE_ROWS) break;
      after = last;
    }
    this.#binary.set(kind, index);
    return index;
  }
}

/** The table whose rows vectors of `kind` belong to; BAD_INPUT for a kind that is none. */
export function vectorOwner(kind: VectorKind): string {
  const owner = VECTOR_OWNERS[kind];
  if (!owner) throw new PolyhopError('BAD_INPUT', `Unknown vector kind "${String(kind)}"`);
  return owner;
}

/**
 * FROM and WHERE of the `kind` rows without a vector (summary vectors exist only for entities with a summary,
 * original-language ones only for non-English chunks).
 */
function missingVectorsFrom(kind: VectorKind): string {
  const extra =
    kind === 'entity_summary'
      ? 'AND o.summary IS NOT NULL'
      : kind === 'chunk_original'
        ? `AND ${sqlNotEnglish('o.language')}`
        : '';
  return `FROM ${vectorOwner(kind)} o WHERE NOT EXISTS (SELECT 1 FROM vec_${kind} v WHERE v.id = o.id) ${extra}`;
}

/** A unit-length copy, or null for a zero or non-finite vector. */
function normalised(vector: Float32Array): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) return null;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}
