import type { EntityRecord, KnowledgeBase } from '../kb/index.js';
import { nameKey } from './names.js';
import type { DisambiguationEntity, DisambiguationStore } from './disambiguationTypes.js';

/**
 * Disambiguate's state kept with the KB between rounds and runs (checkpoints), and the KB as
 * Disambiguate sees it ({@link DisambiguationStore}).
 */

const ALL = 2 ** 31 - 1;
/** The entities of the current Disambiguate round (vectors written, pairs not all decided yet). */
const PENDING_DISAMBIGUATION = 'mder:disambiguate:pending';
/** Entities kept by this round's merges so far: the next round's queue. */
const MERGED_PENDING_DISAMBIGUATION = 'mder:disambiguate:merged';
/** Entities of pairs a run left undecided, and how many runs did: queued again, sampled another way. */
const UNDECIDED_DISAMBIGUATION = 'mder:disambiguate:undecided';
/** Other forms of an entity's name that Map saw in parentheses: Disambiguate's evidence, kept with the KB. */
const variantsKey = (entityId: number): string => `mder:variants:${entityId}`;

export function addVariants(kb: KnowledgeBase, entityId: number, variants: readonly string[]): void {
  const known = kb.jobState.getCheckpoint<string[]>(variantsKey(entityId)) ?? [];
  const added = variants.filter((v) => !known.some((k) => nameKey(k) === nameKey(v)));
  if (added.length > 0) kb.jobState.setCheckpoint(variantsKey(entityId), [...known, ...added]);
}

/** What an earlier run left undecided: its entities and how many runs left them so. */
export interface UndecidedDisambiguation {
  ids: number[];
  runs: number;
}

/**
 * The entities a run compares, in id order. Entities without a name vector have never been
 * compared; the checkpoints keep those of an interrupted run (their vectors are written before
 * their pairs are decided). Entities of pairs an earlier run left undecided come again, and that
 * run's sampling is not repeated.
 */
export function disambiguationQueue(kb: KnowledgeBase): {
  queue: number[];
  undecided: UndecidedDisambiguation | undefined;
} {
  const undecided = kb.jobState.getCheckpoint<UndecidedDisambiguation>(UNDECIDED_DISAMBIGUATION);
  const queue = [
    ...new Set([
      ...(kb.jobState.getCheckpoint<number[]>(PENDING_DISAMBIGUATION) ?? []),
      ...(kb.jobState.getCheckpoint<number[]>(MERGED_PENDING_DISAMBIGUATION) ?? []),
      ...(undecided?.ids ?? []),
      ...kb.vectors.missingVectors('entity_name', ALL),
    ]),
  ].sort((a, b) => a - b);
  return { queue, undecided };
}

/** Ends a run's rounds: nothing pending, and the entities still undecided (`left`) queued for the next run. */
export function finishDisambiguation(
  kb: KnowledgeBase,
  left: readonly number[],
  earlier: UndecidedDisambiguation | undefined,
): void {
  kb.transaction(() => {
    kb.jobState.clearCheckpoints(PENDING_DISAMBIGUATION);
    kb.jobState.clearCheckpoints(MERGED_PENDING_DISAMBIGUATION);
    if (left.length > 0)
      kb.jobState.setCheckpoint(UNDECIDED_DISAMBIGUATION, { ids: left, runs: (earlier?.runs ?? 0) + 1 });
    else kb.jobState.clearCheckpoints(UNDECIDED_DISAMBIGUATION);
  });
}

/** The KB as Disambiguate reads and changes it; merges and name vectors are written with their checkpoints. */
export function kbDisambiguationStore(kb: KnowledgeBase): DisambiguationStore {
  const view = (e: EntityRecord | undefined): DisambiguationEntity | undefined =>
    e && { id: e.id, name: e.name, type: e.type, aliases: e.aliases };
  return {
    entity: (id) => view(kb.graph.getEntity(id)),
    entityNamed: (name) => view(kb.graph.findEntityByName(name)),
    lexicalNeighbours: (name, k) => kb.graph.searchEntityNames(name, k).map((e) => view(e)!),
    variants: (id) => kb.jobState.getCheckpoint<string[]>(variantsKey(id)) ?? [],
    factCount: (id) => kb.graph.countTriplesOfEntity(id),
    context: (id) => {
      const [triple] = kb.graph.triplesOfEntity(id, 'both', 1);
      const chunk = triple?.chunkIds[0] === undefined ? undefined : kb.documents.getChunk(triple.chunkIds[0]);
      return chunk ? (chunk.englishText ?? chunk.text) : (kb.graph.getEntity(id)?.summary ?? '');
    },
    // An entity with a name vector is never queued again by missingVectors: until its round's
    // pairs are decided it stays pending in the checkpoint written with the vectors.
    setNameVectors: (ids, vectors) =>
      kb.transaction(() => {
        kb.vectors.putVectors(
          'entity_name',
          ids.map((id, i) => ({ id, vector: vectors[i]! })),
        );
        kb.jobState.setCheckpoint(PENDING_DISAMBIGUATION, ids);
        kb.jobState.clearCheckpoints(MERGED_PENDING_DISAMBIGUATION);
      }),
    nearest: (vector, k) => kb.vectors.knn('entity_name', vector, k),
    merge: (groups) =>
      kb.transaction(() => {
        const kept = groups.map((group) => {
          // The canonical name may already belong to another entity: that one is the same thing too.
          const holder = kb.graph.findEntityByName(group.canonicalName);
          const ids = [...new Set([group.keepId, ...group.mergeIds, ...(holder ? [holder.id] : [])])].filter((id) =>
            kb.graph.getEntity(id),
          );
          if (ids.length < 2) return ids[0] ?? group.keepId;
          // The KB drops the vectors of renamed entities and re-pointed triples.
          return kb.graph.mergeEntities(group.canonicalName, ids);
        });
        // Kept entities are compared again in the next round, also after a restart.
        kb.jobState.setCheckpoint(MERGED_PENDING_DISAMBIGUATION, [
          ...(kb.jobState.getCheckpoint<number[]>(MERGED_PENDING_DISAMBIGUATION) ?? []),
          ...kept,
        ]);
        return kept;
      }),
  };
}
