import { PolyhopError } from '../base/errors.js';
import { cleanName, entityKey } from './entityKey.js';
import { GraphReader } from './GraphReader.js';
import type { RepositoryContext } from './RepositoryContext.js';
import type { TextIndexRepository } from './TextIndexRepository.js';
import type { VectorIndexRepository } from './VectorIndexRepository.js';
import type { PartialSummaryRepository } from './PartialSummaryRepository.js';
import { ftsDocument } from './utils/ftsText.js';
import type { EntityRecord, NewTriple } from './types.js';

/** One batch of an imported graph for {@link GraphRepository.addImportedRecords}; entities and triples name entities by name. */
export interface ImportedRecords {
  entities: readonly { name: string; type: string }[];
  /** `text` is the triple's BM25 text (its verbalisation). */
  triples: readonly { sourceName: string; relation: string; targetName: string; text: string }[];
  aliases: readonly { name: string; aliases: readonly string[] }[];
}

/**
 * The graph: entities (names, types, summaries, staleness), their aliases and merges, triples with
 * their provenance in chunks, and the entity full-text index. This file holds the writes, which
 * keep both tables and the entity text index in step (a merge, a removal or an imported batch
 * rewrites all of them in one transaction); the reads are {@link GraphReader}'s. Deleting a triple
 * or an entity deletes its vectors and text rows too (through the vector and text index
 * repositories).
 */
export class GraphRepository extends GraphReader {
  readonly #vectors: VectorIndexRepository;
  readonly #textIndex: TextIndexRepository;
  readonly #partials: PartialSummaryRepository;

  constructor(
    context: RepositoryContext,
    vectors: VectorIndexRepository,
    textIndex: TextIndexRepository,
    partials: PartialSummaryRepository,
  ) {
    super(context);
    this.#vectors = vectors;
    this.#textIndex = textIndex;
    this.#partials = partials;
  }

  /**
   * The id of the entity named `name` (or aliased so by a merge), created with `type` if none.
   * Names match exactly on {@link entityKey}: NFKC, case-folded, whitespace trimmed and collapsed.
   * An existing entity keeps its type.
   */
  upsertEntity(name: string, type: string): number {
    const key = entityKey(name);
    if (!key) throw new PolyhopError('BAD_INPUT', 'An entity needs a non-blank name', { details: { name } });
    return this.context.transaction(() => {
      const existing = this.entityIdByKey(key);
      if (existing !== undefined) return existing;
      const id = this.stmt(
        'INSERT INTO entities (name, name_key, type, summary_stale) VALUES (?, ?, ?, 1) RETURNING id',
      )
        .pluck()
        .get(cleanName(name), key, cleanName(type) || 'unknown') as number;
      this.context.touch();
      this.#indexEntityText(id);
      return id;
    });
  }

  /**
   * Merges `ids` into one entity named `canonicalName` and returns its id. The kept entity is the
   * one already holding that name (or alias), else the first of `ids`. The other names become
   * aliases; triples are re-pointed, and those that now coincide are merged with their provenance;
   * merged entities and their vectors are deleted; the kept one is marked stale. Triples whose text
   * changed lose their vector and FTS row (see {@link missingVectors}). CONFLICT when
   * `canonicalName` belongs to an entity outside `ids`.
   */
  mergeEntities(canonicalName: string, ids: readonly number[]): number {
    const key = entityKey(canonicalName);
    if (!key) throw new PolyhopError('BAD_INPUT', 'A merge needs a non-blank canonical name');
    const unique = [...new Set(ids)];
    if (unique.length === 0) throw new PolyhopError('BAD_INPUT', 'A merge needs at least one entity');
    return this.context.transaction(() => {
      const entities = unique.map((id) => this.getEntity(id) ?? this.#throwNotFound('entity', id));
      const holder = this.entityIdByKey(key);
      if (holder !== undefined && !unique.includes(holder)) {
        const other = this.getEntity(holder);
        throw new PolyhopError(
          'CONFLICT',
          `Cannot merge into "${cleanName(canonicalName)}": that name belongs to entity ${holder} ("${other?.name}"), which is not in the merge`,
          {
            details: { canonicalName, holder, ids: unique },
          },
        );
      }
      const keptId = holder ?? (unique[0] as number);
      const kept = entities.find((e) => e.id === keptId) as EntityRecord;
      const others = entities.filter((e) => e.id !== keptId);
      const otherIds = others.map((e) => e.id);
      const renamed = kept.name !== cleanName(canonicalName);
      const changedTriples = new Set<number>();

      // Re-point triples; one that now coincides with an existing triple folds into it.
      const affected = this.stmt(
        `SELECT id, source_id AS sourceId, relation, target_id AS targetId, description FROM triples
         WHERE source_id IN (SELECT value FROM json_each(:ids)) OR target_id IN (SELECT value FROM json_each(:ids)) ORDER BY id`,
      ).all({ ids: JSON.stringify(otherIds) }) as {
        id: number;
        sourceId: number;
        relation: string;
        targetId: number;
        description: string | null;
      }[];
      const repoint = (id: number): number => (otherIds.includes(id) ? keptId : id);
      const removed: number[] = [];
      for (const t of affected) {
        const sourceId = repoint(t.sourceId);
        const targetId = repoint(t.targetId);
        const twin = this.stmt(
          'SELECT id FROM triples WHERE source_id = ? AND relation = ? AND target_id = ? AND id <> ?',
        )
          .pluck()
          .get(sourceId, t.relation, targetId, t.id) as number | undefined;
        if (twin === undefined) {
          this.stmt('UPDATE triples SET source_id = ?, target_id = ? WHERE id = ?').run(sourceId, targetId, t.id);
          changedTriples.add(t.id);
        } else {
          this.stmt(
            'INSERT OR IGNORE INTO triple_chunks (triple_id, chunk_id) SELECT ?, chunk_id FROM triple_chunks WHERE triple_id = ?',
          ).run(twin, t.id);
          this.stmt('UPDATE triples SET description = COALESCE(description, ?) WHERE id = ?').run(t.description, twin);
          removed.push(t.id);
        }
      }
      this.#deleteTriples(removed);
      for (const id of removed) changedTriples.delete(id);

      // Names and aliases of the merged entities move to the kept one.
      this.stmt('UPDATE entity_aliases SET entity_id = ? WHERE entity_id IN (SELECT value FROM json_each(?))').run(
        keptId,
        JSON.stringify(otherIds),
      );
      this.#deleteEntities(otherIds);
      const addAlias = this.stmt('INSERT OR IGNORE INTO entity_aliases (alias_key, alias, entity_id) VALUES (?, ?, ?)');
      for (const other of others) addAlias.run(entityKey(other.name), other.name, keptId);
      if (renamed) {
        this.stmt('DELETE FROM entity_aliases WHERE alias_key = ?').run(key);
        this.stmt('UPDATE entities SET name = ?, name_key = ? WHERE id = ?').run(cleanName(canonicalName), key, keptId);
        if (entityKey(kept.name) !== key) addAlias.run(entityKey(kept.name), kept.name, keptId);
        this.#vectors.deleteRows('entity_name', [keptId]);
        for (const id of this.stmt('SELECT id FROM triples WHERE source_id = ? OR target_id = ?')
          .pluck()
          .all(keptId, keptId) as number[])
          changedTriples.add(id);
      }
      this.stmt('UPDATE entities SET summary_stale = 1 WHERE id = ?').run(keptId);
      this.#indexEntityText(keptId);
      // Their verbalisation names a merged or renamed entity: re-embed and re-index them.
      this.#vectors.deleteRows('triple', [...changedTriples]);
      this.#textIndex.removeText('triple', [...changedTriples]);
      return keptId;
    });
  }

  /**
   * Stores a (re-)reduced summary, clears `summaryStale` (unless `incomplete`: a summary some facts
   * did not reach stays stale, so the next run reduces it again), drops the outdated summary vector.
   */
  setEntitySummary(id: number, summary: string, options: { incomplete?: boolean } = {}): void {
    this.context.transaction(() => {
      const changes = this.stmt('UPDATE entities SET summary = ?, summary_stale = ? WHERE id = ?').run(
        summary,
        options.incomplete ? 1 : 0,
        id,
      ).changes;
      if (changes === 0) throw this.context.notFound('entity', id);
      this.#vectors.deleteRows('entity_summary', [id]);
      this.#partials.removeOfEntities([id]);
      this.#indexEntityText(id);
    });
  }

  /**
   * Adds the triple (or finds it: unique on source, relation, target) and records `chunkId` as
   * provenance. New triples or new provenance mark both entities stale. NOT_FOUND for an unknown
   * entity or chunk.
   */
  addTriple(triple: NewTriple): number {
    const relation = cleanName(triple.relation);
    if (!relation)
      throw new PolyhopError('BAD_INPUT', 'A triple needs a non-blank relation', { details: { ...triple } });
    return this.context.transaction(() => {
      let id = this.stmt('SELECT id FROM triples WHERE source_id = ? AND relation = ? AND target_id = ?')
        .pluck()
        .get(triple.sourceId, relation, triple.targetId) as number | undefined;
      let changed = false;
      if (id === undefined) {
        for (const entityId of [triple.sourceId, triple.targetId])
          if (!this.context.exists('entities', entityId)) throw this.context.notFound('entity', entityId);
        id = this.stmt('INSERT INTO triples (source_id, relation, target_id) VALUES (?, ?, ?) RETURNING id')
          .pluck()
          .get(triple.sourceId, relation, triple.targetId) as number;
        this.context.touch();
        changed = true;
      }
      if (triple.chunkId !== null) {
        if (!this.context.exists('chunks', triple.chunkId)) throw this.context.notFound('chunk', triple.chunkId);
        changed =
          this.stmt('INSERT OR IGNORE INTO triple_chunks (triple_id, chunk_id) VALUES (?, ?)').run(id, triple.chunkId)
            .changes > 0 || changed;
      }
      if (changed)
        this.stmt('UPDATE entities SET summary_stale = 1 WHERE id IN (?, ?)').run(triple.sourceId, triple.targetId);
      return id;
    });
  }

  setTripleDescription(id: number, description: string): void {
    const changes = this.stmt('UPDATE triples SET description = ? WHERE id = ?').run(description, id).changes;
    if (changes === 0) throw this.context.notFound('triple', id);
  }

  /**
   * Adds one batch of an imported graph in one transaction, as {@link upsertEntity},
   * {@link addTriple} (no provenance), {@link indexText} and {@link addAliases} would, minus their
   * per-row savepoints and checks (~4x faster; an import writes millions of rows): an entity whose
   * name is taken (by a name; aliases are not consulted) is that entity; a repeated triple is kept
   * once; aliases are indexed with their entity. NOT_FOUND for a triple naming no entity,
   * BAD_INPUT for a blank name or relation.
   */
  addImportedRecords(records: ImportedRecords): void {
    const idByName = this.stmt('SELECT id FROM entities WHERE name_key = ?').pluck();
    // Triples mostly name entities of their own batch: those are found without a query.
    const created = new Map<string, number>();
    const idOf = (name: string): number => {
      const id = created.get(name) ?? (idByName.get(entityKey(name)) as number | undefined);
      if (id === undefined)
        throw new PolyhopError('NOT_FOUND', `No entity named "${name}" in knowledge base "${this.context.name()}"`, {
          details: { what: 'entity', name },
        });
      return id;
    };
    this.context.transaction(() => {
      this.context.touch();
      const insertEntity = this.stmt(
        'INSERT INTO entities (name, name_key, type, summary_stale) VALUES (?, ?, ?, 1) ON CONFLICT (name_key) DO NOTHING RETURNING id',
      ).pluck();
      const indexEntity = this.stmt("INSERT INTO fts_entity (rowid, name, aliases, summary) VALUES (?, ?, '', '')");
      for (const { name, type } of records.entities) {
        const key = entityKey(name);
        if (!key) throw new PolyhopError('BAD_INPUT', 'An entity needs a non-blank name', { details: { name } });
        const id = insertEntity.get(cleanName(name), key, cleanName(type) || 'unknown') as number | undefined;
        if (id === undefined) continue;
        indexEntity.run(id, ftsDocument(cleanName(name)));
        created.set(name, id);
      }
      const insertTriple = this.stmt(
        'INSERT INTO triples (source_id, relation, target_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id',
      ).pluck();
      const indexTriple = this.stmt('INSERT INTO fts_triple (rowid, text) VALUES (?, ?)');
      for (const t of records.triples) {
        const relation = cleanName(t.relation);
        if (!relation)
          throw new PolyhopError('BAD_INPUT', 'A triple needs a non-blank relation', { details: { ...t } });
        const id = insertTriple.get(idOf(t.sourceName), relation, idOf(t.targetName)) as number | undefined;
        if (id !== undefined) indexTriple.run(id, ftsDocument(t.text));
      }
      for (const { name, aliases } of records.aliases) {
        const id = idOf(name);
        this.addAliases(id, aliases);
        this.#indexEntityText(id);
      }
    });
  }

  /** Records other names of an entity (e.g. an imported node's further labels); names taken by another entity are skipped. */
  addAliases(entityId: number, aliases: readonly string[]): void {
    const add = this.stmt(
      'INSERT OR IGNORE INTO entity_aliases (alias_key, alias, entity_id) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM entities WHERE name_key = ?)',
    );
    for (const alias of aliases) {
      const key = entityKey(alias);
      if (key) add.run(key, alias, entityId, key);
    }
  }

  /** Keeps the entity's FTS row (name, aliases, summary) in step with the entity. */
  #indexEntityText(id: number): void {
    this.stmt('DELETE FROM fts_entity WHERE rowid = ?').run(id);
    const entity = this.getEntity(id);
    if (!entity) return;
    this.stmt('INSERT INTO fts_entity (rowid, name, aliases, summary) VALUES (?, ?, ?, ?)').run(
      id,
      ftsDocument(entity.name),
      ftsDocument(entity.aliases.join(' \n ')),
      ftsDocument(entity.summary ?? ''),
    );
  }

  #deleteTriples(ids: number[]): void {
    if (ids.length === 0) return;
    this.context.touch();
    this.#vectors.deleteRows('triple', ids);
    this.#textIndex.removeText('triple', ids);
    this.stmt('DELETE FROM triples WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
  }

  /** Deletes entities that no triple references, with their vectors and FTS rows (aliases cascade). */
  #deleteEntities(ids: number[]): void {
    if (ids.length === 0) return;
    this.context.touch();
    this.#vectors.deleteRows('entity_name', ids);
    this.#vectors.deleteRows('entity_summary', ids);
    this.#partials.removeOfEntities(ids);
    const json = JSON.stringify(ids);
    this.stmt('DELETE FROM fts_entity WHERE rowid IN (SELECT value FROM json_each(?))').run(json);
    this.stmt('DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))').run(json);
  }

  /**
   * @internal Deletes the triples whose only provenance is in `chunkIds` (with their vectors and
   * text rows); returns them and the entities of every triple those chunks support. Runs in the
   * caller's transaction, before the chunks go.
   */
  removeTriplesOnlyFrom(chunkIds: readonly number[]): { removedTripleIds: number[]; touchedEntityIds: number[] } {
    const chunks = JSON.stringify(chunkIds);
    const supported = this.stmt(
      'SELECT DISTINCT triple_id FROM triple_chunks WHERE chunk_id IN (SELECT value FROM json_each(?))',
    )
      .pluck()
      .all(chunks) as number[];
    const doomed = this.stmt(
      `SELECT s.value FROM json_each(:supported) s WHERE NOT EXISTS (
         SELECT 1 FROM triple_chunks tc WHERE tc.triple_id = s.value AND tc.chunk_id NOT IN (SELECT value FROM json_each(:chunks)))`,
    )
      .pluck()
      .all({ supported: JSON.stringify(supported), chunks }) as number[];
    const touched = this.stmt(
      `SELECT source_id FROM triples WHERE id IN (SELECT value FROM json_each(:ids))
       UNION SELECT target_id FROM triples WHERE id IN (SELECT value FROM json_each(:ids))`,
    )
      .pluck()
      .all({ ids: JSON.stringify(supported) }) as number[];
    this.#deleteTriples(doomed);
    return { removedTripleIds: doomed, touchedEntityIds: touched };
  }

  /**
   * @internal Of `entityIds`, deletes those no triple references any more and marks the others
   * stale; returns both, by id. Runs in the caller's transaction.
   */
  removeOrphans(entityIds: readonly number[]): { removedEntityIds: number[]; touchedEntityIds: number[] } {
    const orphans = this.stmt(
      `SELECT e.value FROM json_each(?) e WHERE NOT EXISTS (SELECT 1 FROM triples WHERE source_id = e.value)
         AND NOT EXISTS (SELECT 1 FROM triples WHERE target_id = e.value)`,
    )
      .pluck()
      .all(JSON.stringify(entityIds)) as number[];
    this.#deleteEntities(orphans);
    const survivors = entityIds.filter((id) => !orphans.includes(id)).sort((a, b) => a - b);
    this.#partials.removeOfEntities(survivors);
    this.stmt('UPDATE entities SET summary_stale = 1 WHERE id IN (SELECT value FROM json_each(?))').run(
      JSON.stringify(survivors),
    );
    return { removedEntityIds: orphans.sort((a, b) => a - b), touchedEntityIds: survivors };
  }

  /** @internal Deletes every entity, alias and triple with their text rows (not their vectors), in the caller's transaction. */
  clear(): void {
    this.context.db
      .exec(`INSERT INTO fts_triple (fts_triple) VALUES ('delete-all'); INSERT INTO fts_entity (fts_entity) VALUES ('delete-all');
      DELETE FROM triples; DELETE FROM entity_aliases; DELETE FROM entities;`);
    this.context.touch();
  }

  #throwNotFound(what: string, id: number): never {
    throw this.context.notFound(what, id);
  }
}
