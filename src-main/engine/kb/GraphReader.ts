import { missingCase } from '../base/assert.js';
import { entityKey } from './entityKey.js';
import type { RepositoryContext } from './RepositoryContext.js';
import { ftsQuery } from './utils/ftsText.js';
import { inOrder, paged } from './utils/rows.js';
import type { IterateOptions } from './utils/rows.js';
import type { EntityRecord, NamedCount, TripleDirection, TripleRecord } from './types.js';

export interface ListEntitiesOptions {
  /** Only entities whose summary is (true) or is not (false) stale. Default: undefined (all). */
  stale?: boolean;
  /** Only entities of this type. Default: undefined (all). */
  type?: string;
  /** Default: 0. */
  offset?: number;
  /** Default: 1000. */
  limit?: number;
}

const ENTITY_COLUMNS = `e.id, e.name, e.type, e.summary, e.summary_stale AS summaryStale,
  (SELECT json_group_array(alias) FROM entity_aliases WHERE entity_id = e.id) AS aliases`;
const TRIPLE_SELECT = `SELECT t.id, t.source_id AS sourceId, s.name AS sourceName, t.relation, t.target_id AS targetId,
  o.name AS targetName, t.description,
  (SELECT json_group_array(chunk_id) FROM triple_chunks WHERE triple_id = t.id) AS chunkIds
  FROM triples t JOIN entities s ON s.id = t.source_id JOIN entities o ON o.id = t.target_id`;

type EntityRow = Omit<EntityRecord, 'summaryStale' | 'aliases'> & { summaryStale: number; aliases: string };
type TripleRow = Omit<TripleRecord, 'chunkIds'> & { chunkIds: string };

/**
 * The graph's reads: entities by id, name or filter, their full-text search, triples by id, entity
 * or chunk, counts, and the streams the RDF view is built from. GraphRepository (GraphRepository.ts)
 * adds the writes on top of it.
 */
export class GraphReader {
  protected readonly context: RepositoryContext;

  constructor(context: RepositoryContext) {
    this.context = context;
  }

  getEntity(id: number): EntityRecord | undefined {
    const row = this.stmt(`SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id = ?`).get(id) as EntityRow | undefined;
    return row && toEntity(row);
  }

  /** Entities in the order of `ids`; unknown ids are skipped. */
  getEntities(ids: readonly number[]): EntityRecord[] {
    const rows = this.stmt(
      `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as EntityRow[];
    return inOrder(ids, rows.map(toEntity));
  }

  /** By name or alias, on the key GraphRepository's `upsertEntity` matches ({@link entityKey}). */
  findEntityByName(name: string): EntityRecord | undefined {
    const id = this.entityIdByKey(entityKey(name));
    return id === undefined ? undefined : this.getEntity(id);
  }

  /** Entities by id. */
  listEntities(options: ListEntitiesOptions = {}): EntityRecord[] {
    const { offset = 0, limit = 1000 } = options;
    const { where, params } = entityFilter(options);
    const rows = this.stmt(
      `SELECT ${ENTITY_COLUMNS} FROM entities e ${where} ORDER BY e.id LIMIT :limit OFFSET :offset`,
    ).all({
      ...params,
      limit,
      offset,
    }) as EntityRow[];
    return rows.map(toEntity);
  }

  countEntities(options: { stale?: boolean; type?: string } = {}): number {
    const { where, params } = entityFilter(options);
    return this.stmt(`SELECT COUNT(*) FROM entities e ${where}`).pluck().get(params) as number;
  }

  /**
   * Full-text prefix search over names (weighted most), aliases and summaries, in any language;
   * FTS5 syntax in `query` is inert. An empty query lists entities by name.
   */
  searchEntities(query: string, type?: string, limit = 50): EntityRecord[] {
    const typeFilter = type === undefined ? '' : 'AND e.type = :type';
    const params = type === undefined ? { limit } : { limit, type };
    const match = ftsQuery(query, { prefix: true });
    if (match === null) {
      const rows = this.stmt(
        `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE 1 ${typeFilter} ORDER BY e.name_key LIMIT :limit`,
      ).all(params) as EntityRow[];
      return rows.map(toEntity);
    }
    const rows = this.stmt(
      `SELECT ${ENTITY_COLUMNS} FROM (SELECT rowid AS id, bm25(fts_entity, 10.0, 5.0, 1.0) AS rank FROM fts_entity WHERE fts_entity MATCH :match) f
       JOIN entities e ON e.id = f.id WHERE 1 ${typeFilter} ORDER BY f.rank, e.id LIMIT :limit`,
    ).all({ ...params, match }) as EntityRow[];
    return rows.map(toEntity);
  }

  /**
   * Entities whose name or aliases hold words of `name` (full-text, prefix, accents folded), best
   * first; summaries are not searched (Disambiguate's lexical candidates).
   */
  searchEntityNames(name: string, limit = 10): EntityRecord[] {
    const match = ftsQuery(name, { prefix: true });
    if (match === null) return [];
    const rows = this.stmt(
      `SELECT ${ENTITY_COLUMNS} FROM (SELECT rowid AS id, bm25(fts_entity, 10.0, 5.0, 1.0) AS rank FROM fts_entity WHERE fts_entity MATCH :match) f
       JOIN entities e ON e.id = f.id ORDER BY f.rank, e.id LIMIT :limit`,
    ).all({ match: `{name aliases} : (${match})`, limit }) as EntityRow[];
    return rows.map(toEntity);
  }

  /** Entity types by count, most used first; cached until entities change. */
  entityTypes(): NamedCount[] {
    return [
      ...this.context.derive(
        'entityTypes',
        () =>
          this.stmt(
            'SELECT type AS name, COUNT(*) AS count FROM entities GROUP BY type ORDER BY count DESC, name',
          ).all() as NamedCount[],
      ),
    ];
  }

  /** Triples in the order of `ids`; unknown ids are skipped. */
  getTriples(ids: readonly number[]): TripleRecord[] {
    const rows = this.stmt(`${TRIPLE_SELECT} WHERE t.id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as TripleRow[];
    return inOrder(ids, rows.map(toTriple));
  }

  triplesOfEntity(entityId: number, direction: TripleDirection = 'both', limit = 10_000): TripleRecord[] {
    let where: string;
    switch (direction) {
      case 'out':
        where = 't.source_id = :id';
        break;
      case 'in':
        where = 't.target_id = :id';
        break;
      case 'both':
        where =
          't.id IN (SELECT id FROM triples WHERE source_id = :id UNION SELECT id FROM triples WHERE target_id = :id)';
        break;
      default:
        throw missingCase(direction);
    }
    const rows = this.stmt(`${TRIPLE_SELECT} WHERE ${where} ORDER BY t.id LIMIT :limit`).all({
      id: entityId,
      limit,
    }) as TripleRow[];
    return rows.map(toTriple);
  }

  /** Triples with provenance in any of the chunks, by id. */
  triplesOfChunks(chunkIds: readonly number[]): TripleRecord[] {
    const rows = this.stmt(
      `${TRIPLE_SELECT} WHERE t.id IN (SELECT triple_id FROM triple_chunks WHERE chunk_id IN (SELECT value FROM json_each(?))) ORDER BY t.id`,
    ).all(JSON.stringify(chunkIds)) as TripleRow[];
    return rows.map(toTriple);
  }

  countTriples(): number {
    return this.stmt('SELECT COUNT(*) FROM triples').pluck().get() as number;
  }

  /** Triples with the entity as source or target. */
  countTriplesOfEntity(entityId: number): number {
    return this.stmt(
      'SELECT (SELECT COUNT(*) FROM triples WHERE source_id = :id) + (SELECT COUNT(*) FROM triples WHERE target_id = :id AND source_id <> :id)',
    )
      .pluck()
      .get({ id: entityId }) as number;
  }

  /** Relations by count, most used first; cached until triples change. */
  relations(): NamedCount[] {
    return [
      ...this.context.derive(
        'relations',
        () =>
          this.stmt(
            'SELECT relation AS name, COUNT(*) AS count FROM triples GROUP BY relation ORDER BY count DESC, name',
          ).all() as NamedCount[],
      ),
    ];
  }

  /** Every entity, by id. */
  *iterateEntities(options: Omit<IterateOptions, 'documentId'> = {}): Generator<EntityRecord> {
    for (const row of paged<EntityRow>(
      this.context.statements,
      `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id > :after ORDER BY e.id LIMIT :limit`,
      {},
      options.batchSize,
    )) {
      yield toEntity(row);
    }
  }

  /** Every triple (or those with provenance in one document's chunks), by id. */
  *iterateTriples(options: IterateOptions = {}): Generator<TripleRecord> {
    const byDocument =
      options.documentId === undefined
        ? ''
        : 'AND t.id IN (SELECT tc.triple_id FROM triple_chunks tc JOIN chunks c ON c.id = tc.chunk_id WHERE c.document_id = :documentId)';
    const params = options.documentId === undefined ? {} : { documentId: options.documentId };
    for (const row of paged<TripleRow>(
      this.context.statements,
      `${TRIPLE_SELECT} WHERE t.id > :after ${byDocument} ORDER BY t.id LIMIT :limit`,
      params,
      options.batchSize,
    )) {
      yield toTriple(row);
    }
  }

  /** The entity holding `key` as its name or as an alias. */
  protected entityIdByKey(key: string): number | undefined {
    return (this.stmt('SELECT id FROM entities WHERE name_key = ?').pluck().get(key) ??
      this.stmt('SELECT entity_id FROM entity_aliases WHERE alias_key = ?').pluck().get(key)) as number | undefined;
  }

  protected stmt(sql: string) {
    return this.context.statements.get(sql);
  }
}

function entityFilter(options: { stale?: boolean; type?: string }): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (options.stale !== undefined) {
    clauses.push('e.summary_stale = :stale');
    params.stale = options.stale ? 1 : 0;
  }
  if (options.type !== undefined) {
    clauses.push('e.type = :type');
    params.type = options.type;
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

function toEntity(row: EntityRow): EntityRecord {
  return { ...row, summaryStale: row.summaryStale === 1, aliases: (JSON.parse(row.aliases) as string[]).sort() };
}

function toTriple(row: TripleRow): TripleRecord {
  return { ...row, chunkIds: JSON.parse(row.chunkIds) as number[] };
}
