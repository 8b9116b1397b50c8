import type { RepositoryContext } from './RepositoryContext.js';
import type { NewPartialSummary, PartialSummaryRecord, ScoredId } from './types.js';
import type { VectorIndexRepository } from './VectorIndexRepository.js';

const COLUMNS = `id, entity_id AS entityId, ord, first_fact AS firstFact, last_fact AS lastFact,
  fact_count AS factCount, text, triple_ids AS tripleIds`;

type PartialRow = Omit<PartialSummaryRecord, 'tripleIds'> & { tripleIds: string | null };
const fromRow = (row: PartialRow): PartialSummaryRecord => ({
  ...row,
  tripleIds: row.tripleIds === null ? null : (JSON.parse(row.tripleIds) as number[]),
});

/**
 * The partial summaries of hub entities (table `entity_partials`, migrations 0007 and 0013): Reduce cuts the
 * facts of an entity too large for one call into consecutive groups and summarises each; the final
 * summary is capped (12 sentences), so a fact may survive only in its group's partial. They are
 * kept and embedded (vector family `entity_partial`) so that answering finds them like the entity's
 * summary, citing the chunks of the triples they summarise. They are replaced when the entity is reduced again, and go when its triples change
 * through a document's removal or when the entity goes.
 */
export class PartialSummaryRepository {
  readonly #context: RepositoryContext;
  readonly #vectors: VectorIndexRepository;

  constructor(context: RepositoryContext, vectors: VectorIndexRepository) {
    this.#context = context;
    this.#vectors = vectors;
  }

  /** Replaces the entity's partial summaries (none: the entity fits one call). NOT_FOUND when it does not exist. */
  replace(entityId: number, partials: readonly NewPartialSummary[]): PartialSummaryRecord[] {
    return this.#context.transaction(() => {
      if (!this.#context.exists('entities', entityId)) throw this.#context.notFound('entity', entityId);
      this.removeOfEntities([entityId]);
      const insert = this.#context.statements.get(
        'INSERT INTO entity_partials (entity_id, ord, first_fact, last_fact, fact_count, text, triple_ids) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      partials.forEach((p, ord) =>
        insert.run(
          entityId,
          ord,
          p.firstFact,
          p.lastFact,
          p.factCount,
          p.text,
          p.tripleIds ? JSON.stringify(p.tripleIds) : null,
        ),
      );
      return this.ofEntity(entityId);
    });
  }

  /** Removes the partial summaries of these entities with their vectors. */
  removeOfEntities(entityIds: readonly number[]): void {
    if (entityIds.length === 0) return;
    const ids = this.#context.statements
      .get('SELECT id FROM entity_partials WHERE entity_id IN (SELECT value FROM json_each(?))')
      .pluck()
      .all(JSON.stringify(entityIds)) as number[];
    if (ids.length === 0) return;
    this.#vectors.deleteRows('entity_partial', ids);
    this.#context.statements
      .get('DELETE FROM entity_partials WHERE id IN (SELECT value FROM json_each(?))')
      .run(JSON.stringify(ids));
  }

  /** The entity's partial summaries in fact order. */
  ofEntity(entityId: number): PartialSummaryRecord[] {
    return this.#context.statements
      .get(`SELECT ${COLUMNS} FROM entity_partials WHERE entity_id = ? ORDER BY ord`)
      .all(entityId)
      .map((row) => fromRow(row as PartialRow));
  }

  /** Partial summaries in the order of `ids`; unknown ids are skipped. */
  get(ids: readonly number[]): PartialSummaryRecord[] {
    const rows = this.#context.statements
      .get(`SELECT ${COLUMNS} FROM entity_partials WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids))
      .map((row) => fromRow(row as PartialRow));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * The `k` embedded partial summaries of these entities nearest `query` (exact cosine: a hub has
   * a handful of partials, so no index is needed). Score = cosine, higher is better.
   */
  nearestOf(entityIds: readonly number[], query: Float32Array, k: number): ScoredId[] {
    if (entityIds.length === 0 || k <= 0) return [];
    const rows = this.#context.statements
      .get(
        `SELECT p.id, vec_distance_cosine(v.vector, ?) AS distance FROM entity_partials p JOIN vec_entity_partial v ON v.id = p.id
         WHERE p.entity_id IN (SELECT value FROM json_each(?)) ORDER BY distance, p.id LIMIT ?`,
      )
      .all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), JSON.stringify(entityIds), k) as {
      id: number;
      distance: number;
    }[];
    return rows.map((r) => ({ id: r.id, score: 1 - r.distance }));
  }

  count(): number {
    return this.#context.statements.get('SELECT COUNT(*) FROM entity_partials').pluck().get() as number;
  }
}
