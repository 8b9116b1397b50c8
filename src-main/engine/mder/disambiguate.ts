import { throwIfAborted } from '../base/abort.js';
import { yieldToEventLoop } from '../base/concurrency.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import { lexicalEvidence, nameKey } from './names.js';
import { compatibleTypes } from './entityTypes.js';
import { confirmPairs } from './confirmPairs.js';
import { chainPairs, planMerges } from './planMerges.js';
import type {
  CandidatePair,
  DisambiguateOptions,
  DisambiguateResult,
  DisambiguationEntity,
  DisambiguationStore,
  MergeGroup,
} from './disambiguationTypes.js';

export type {
  CandidatePair,
  DisambiguateOptions,
  DisambiguateResult,
  DisambiguationEntity,
  DisambiguationStore,
  MergeGroup,
} from './disambiguationTypes.js';
export { planMerges } from './planMerges.js';
export { disambiguateReplySchema } from './confirmPairs.js';

/** Merges applied per store call: a bounded stretch of work between yields to the event loop. */
const MERGES_PER_CALL = 32;
/** Lexical evidence, strongest first (before any name similarity). */
const EVIDENCE_ORDER = ['same letters', 'acronym', 'same head noun'] as const;

/**
 * Disambiguate (MDER-DR §3.1): candidate pairs are found from the entities in `entityIds` (so an
 * incremental run compares only new entities with all others) by three kinds of evidence: name
 * embeddings at least `threshold` similar (KNN), lexical evidence (same letters once accents are
 * folded, acronyms, the same head proper noun; found by full-text search over names and aliases)
 * and the other form Map saw written beside a name; only entities of compatible types (see
 * entityTypes), and at most `maxCandidatesPerEntity` per entity. The LLM confirms the pairs with
 * the contexts, many per call (pairs whose names differ in a number are decided without one: see
 * confirmPairs). Confirmed pairs merge under a canonical name only as cliques: a
 * chain of verdicts (A~B, B~C) has its unasked pairs (A~C) asked first, and joins only what they
 * confirm. Renamed entities are compared again until a round merges nothing.
 */
export async function disambiguate(
  llm: Llm,
  embedder: Embedder,
  store: DisambiguationStore,
  entityIds: readonly number[],
  options: DisambiguateOptions,
): Promise<DisambiguateResult> {
  const threshold = options.threshold ?? 0.95;
  const k = options.neighbours ?? 10;
  const cap = options.maxCandidatesPerEntity ?? 3;
  const undecided = new Set<number>();
  const asked = new Set<string>();
  const merges: MergeGroup[] = [];
  let queue = [...new Set(entityIds)];
  let rounds = 0;
  let pairsAsked = 0;
  while (queue.length > 0) {
    throwIfAborted(options.signal);
    rounds++;
    const live = queue.map((id) => store.entity(id)).filter((e): e is DisambiguationEntity => e !== undefined);
    const vectors = await embedder.embed(
      live.map((e) => e.name),
      { signal: options.signal },
    );
    store.setNameVectors(
      live.map((e) => e.id),
      vectors,
    );
    const pairs = new Map<string, CandidatePair>();
    /** Adds the pair (or its evidence); whether it is a new pair of this round. */
    const consider = (entity: DisambiguationEntity, other: DisambiguationEntity, evidence: string[]): boolean => {
      const key = pairKey(entity.name, other.name);
      if (asked.has(key) && !pairs.has(key)) return false;
      const known = pairs.get(key);
      const pair =
        known ?? (entity.id < other.id ? { a: entity, b: other, evidence: [] } : { a: other, b: entity, evidence: [] });
      for (const e of evidence) if (!pair.evidence.includes(e)) pair.evidence.push(e);
      pairs.set(key, pair);
      asked.add(key);
      return known === undefined;
    };
    for (const [i, entity] of live.entries()) {
      // One KNN and one full-text search per entity: yield now and then so the front doors stay responsive.
      if (i % 64 === 63) await yieldToEventLoop();
      const found = new Map<number, { other: DisambiguationEntity; rank: number; evidence: string[] }>();
      const add = (other: DisambiguationEntity | undefined, rank: number, evidence: string) => {
        // A Person is never a City, whatever the names: such a pair is not worth a question.
        if (
          !other ||
          other.id === entity.id ||
          nameKey(entity.name) === nameKey(other.name) ||
          !compatibleTypes(entity.type, other.type)
        )
          return;
        const seen = found.get(other.id) ?? { other, rank, evidence: [] };
        seen.rank = Math.min(seen.rank, rank);
        seen.evidence.push(evidence);
        found.set(other.id, seen);
      };
      for (const variant of store.variants(entity.id)) add(store.entityNamed(variant), 0, `also written "${variant}"`);
      for (const other of store.lexicalNeighbours(entity.name, k)) {
        const evidence = strongestLexicalEvidence(entity, other);
        if (evidence) add(other, 1 + EVIDENCE_ORDER.indexOf(evidence), evidence);
      }
      for (const hit of store.nearest(vectors[i]!, k + 1)) {
        if (hit.id !== entity.id && hit.score >= threshold)
          add(store.entity(hit.id), 5 - hit.score, `name similarity ${hit.score.toFixed(2)}`);
      }
      let started = 0;
      for (const c of [...found.values()].sort((x, y) => x.rank - y.rank)) {
        if (started >= cap) break;
        if (consider(entity, c.other, c.evidence)) started++;
      }
    }
    if (pairs.size === 0) break;
    pairsAsked += pairs.size;
    const first = await confirmPairs(llm, store, [...pairs.values()], options);
    // A chain of verdicts is not a verdict on its ends: ask the pairs it would join unasked.
    const chained = chainPairs(first.confirmed, first.decided);
    for (const p of chained) asked.add(pairKey(p.a.name, p.b.name));
    pairsAsked += chained.length;
    const second =
      chained.length > 0
        ? await confirmPairs(llm, store, chained, options)
        : { confirmed: [], decided: new Set<string>(), undecided: [] };
    for (const p of [...first.undecided, ...second.undecided]) [p.a.id, p.b.id].forEach((id) => undecided.add(id));
    const groups = planMerges([...first.confirmed, ...second.confirmed]);
    queue = [];
    for (let i = 0; i < groups.length; i += MERGES_PER_CALL) {
      throwIfAborted(options.signal);
      const slice = groups.slice(i, i + MERGES_PER_CALL);
      const kept = store.merge(slice);
      slice.forEach((group, j) => merges.push({ ...group, keepId: kept[j] as number }));
      queue.push(...kept);
      await yieldToEventLoop();
    }
  }
  return { merges, rounds, pairsAsked, undecided: [...undecided].sort((a, b) => a - b) };
}

function strongestLexicalEvidence(
  a: DisambiguationEntity,
  b: DisambiguationEntity,
): (typeof EVIDENCE_ORDER)[number] | null {
  const order = EVIDENCE_ORDER;
  let best: number | null = null;
  for (const x of [a.name, ...(a.aliases ?? [])]) {
    for (const y of [b.name, ...(b.aliases ?? [])]) {
      const e = lexicalEvidence(x, y);
      if (e && (best === null || order.indexOf(e) < best)) best = order.indexOf(e);
    }
  }
  return best === null ? null : order[best]!;
}

function pairKey(a: string, b: string): string {
  const [x, y] = [nameKey(a), nameKey(b)].sort();
  return `${x}\u0000${y}`;
}
