import { z } from 'zod';
import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent, yieldToEventLoop } from '../base/concurrency.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm, LlmCallOptions } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { ScoredId } from '../kb/types.js';
import { fence } from '../base/fence.js';
import { lexicalEvidence, nameKey, splitName } from './names.js';
import { asUnitFailure, type UnitFailure } from './unitFailure.js';
import { fitsContext, sameKey } from './askInBatches.js';
import { compatibleTypes } from './entityTypes.js';

/**
 * Reply schema of one `mder/disambiguate` call: one decision per pair, exactly as many as pairs,
 * each naming its pair by id (the grammar only lets the model write the ids it was given) and by
 * the names of its entities A and B (checked: a decision keyed to another pair decides nothing).
 * Pairs left without a usable decision are asked again alone.
 */
export const disambiguateReplySchema = (pairIds: readonly [string, ...string[]]) =>
  z.object({
    decisions: z
      .array(
        z.object({ pair: z.enum(pairIds), a: z.string(), b: z.string(), same: z.boolean(), canonical: z.string() }),
      )
      .min(pairIds.length)
      .max(pairIds.length),
  });

export interface DisambiguationEntity {
  id: number;
  name: string;
  type: string;
  /** Names it took over in earlier merges. Default: none. */
  aliases?: readonly string[];
  /** Triples it takes part in (how established its name is): breaks ties between proposed names. Default: 0. */
  facts?: number;
}

/** One merge: `mergeIds` fold into `keepId`, which is renamed to `canonicalName`. */
export interface MergeGroup {
  keepId: number;
  mergeIds: number[];
  canonicalName: string;
}

/** What Disambiguate needs from the knowledge base (the orchestrator adapts the KB to it). */
export interface DisambiguationStore {
  /** Current state of an entity, or undefined when it no longer exists (merged away). */
  entity(id: number): DisambiguationEntity | undefined;
  /** The entity holding `name` as its name or alias. */
  entityNamed(name: string): DisambiguationEntity | undefined;
  /** A short excerpt of original text where the entity is mentioned. */
  context(id: number): string;
  /** Stores entity-name vectors (the KNN index) of the entities a round compares. */
  setNameVectors(ids: readonly number[], vectors: readonly Float32Array[]): void;
  /** Nearest entities by name vector, best first (may include `vector`'s own entity). */
  nearest(vector: Float32Array, k: number): ScoredId[];
  /** Entities whose names or aliases share words with `name` (full-text, accents folded), best first. */
  lexicalNeighbours(name: string, k: number): DisambiguationEntity[];
  /** Other forms Map saw written beside the entity's name ("Ulisse (Ulysses)"). */
  variants(id: number): readonly string[];
  /** Triples the entity takes part in. */
  factCount(id: number): number;
  /**
   * Applies merges, all or none; returns each one's surviving entity id (which may differ from
   * `keepId` when the canonical name already exists).
   */
  merge(groups: readonly MergeGroup[]): number[];
}

export interface DisambiguateOptions {
  prompts: PromptLibrary;
  /**
   * Cosine similarity of name vectors from which a pair goes to the LLM. Default: 0.95 (the
   * paper's, for mxbai-embed-large); the indexing job passes the KB's calibrated value.
   */
  threshold?: number;
  /** Neighbours looked up per entity, by vector and by words each (blocking: never all pairs). Default: 10. */
  neighbours?: number;
  /**
   * Candidate pairs an entity starts per round at most, strongest evidence first (a form Map saw
   * written beside it, the same letters, an acronym, the same head noun, then name similarity).
   * Default: 3.
   */
  maxCandidatesPerEntity?: number;
  /** Pairs per LLM call. Default: 16. */
  pairsPerCall?: number;
  /** Characters of context per entity. Default: 150. */
  contextChars?: number;
  /** Completion budget per call. Default: 1024. */
  maxTokens?: number;
  /** Parallel LLM calls. Default: llm.parallelism. */
  concurrency?: number;
  /** Sampling of the calls (another seed for entities asked again after a run left them undecided). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  /** A pair with no valid decision, even asked alone: it is left unmerged and reported here. */
  onFailure?: (failure: UnitFailure) => void;
  /** Progress over candidate pairs decided in the current round. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface DisambiguateResult {
  /** Merges applied, in order, over all rounds. */
  merges: MergeGroup[];
  rounds: number;
  pairsAsked: number;
  /** Entities of pairs that got no valid decision, even asked alone: to be queued again by the next run. */
  undecided: number[];
}

/** Merges applied per store call: a bounded stretch of work between yields to the event loop. */
const MERGES_PER_CALL = 32;
/** A chain of verdicts joining more entities than this is not checked pair by pair: only its confirmed cliques merge. */
const MAX_CHAIN = 12;
/** Lexical evidence, strongest first (before any name similarity). */
const EVIDENCE_ORDER = ['same letters', 'acronym', 'same head noun'] as const;

/** A candidate pair and why it is one (shown to the LLM). */
export interface CandidatePair {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
  evidence: string[];
}

/**
 * Disambiguate (MDER-DR §3.1): candidate pairs are found from the entities in `entityIds` (so an
 * incremental run compares only new entities with all others) by three kinds of evidence: name
 * embeddings at least `threshold` similar (KNN), lexical evidence (same letters once accents are
 * folded, acronyms, the same head proper noun; found by full-text search over names and aliases)
 * and the other form Map saw written beside a name; only entities of compatible types (see
 * entityTypes), and at most `maxCandidatesPerEntity` per entity. The LLM confirms the pairs with
 * the contexts, many per call. Confirmed pairs merge under a canonical name only as cliques: a
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

/** The pairs of each chain of confirmed pairs (a cluster of three or more) that no decision covers yet. */
function chainPairs(confirmed: readonly Confirmed[], decided: ReadonlySet<string>): CandidatePair[] {
  const links = new Map<number, Set<number>>();
  const byId = new Map<number, DisambiguationEntity>();
  for (const c of confirmed) {
    for (const [x, y] of [
      [c.a, c.b],
      [c.b, c.a],
    ] as const) {
      links.set(x.id, (links.get(x.id) ?? new Set()).add(y.id));
      byId.set(x.id, x);
    }
  }
  const out: CandidatePair[] = [];
  const seen = new Set<number>();
  for (const start of links.keys()) {
    if (seen.has(start)) continue;
    const cluster = [start];
    seen.add(start);
    for (let i = 0; i < cluster.length; i++) {
      for (const next of links.get(cluster[i]!)!) if (!seen.has(next) && seen.add(next)) cluster.push(next);
    }
    if (cluster.length < 3 || cluster.length > MAX_CHAIN) continue;
    cluster.sort((x, y) => x - y);
    for (const [i, x] of cluster.entries()) {
      for (const y of cluster.slice(i + 1)) {
        const [a, b] = [byId.get(x)!, byId.get(y)!];
        if (decided.has(idPair(x, y)) || !compatibleTypes(a.type, b.type)) continue;
        out.push({ a, b, evidence: ['each was judged the same as a third name in this round'] });
      }
    }
  }
  return out;
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

interface Confirmed {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
  canonical: string;
}

type Decision = { same: boolean; canonical: string };

/** Decisions on a list of pairs: the confirmed ones, every pair decided either way (by ids), and those left undecided. */
interface Confirmations {
  confirmed: Confirmed[];
  decided: Set<string>;
  undecided: CandidatePair[];
}

async function confirmPairs(
  llm: Llm,
  store: DisambiguationStore,
  pairs: CandidatePair[],
  options: DisambiguateOptions,
): Promise<Confirmations> {
  const perCall = options.pairsPerCall ?? 16;
  const decided_ = new Set<string>();
  const undecided: CandidatePair[] = [];
  const batches: CandidatePair[][] = [];
  for (let i = 0; i < pairs.length; i += perCall) batches.push(pairs.slice(i, i + perCall));
  let done = 0;
  const results = await mapConcurrent(
    batches,
    options.concurrency ?? llm.parallelism,
    async (batch, index, signal) => {
      // The stopping signal: a hard failure elsewhere ends this batch's calls too.
      const asking = { ...options, signal };
      const first = await askPairs(llm, store, batch, asking, index);
      if (first.failure) options.onFailure?.(first.failure);
      const decided = first.decisions;
      // A pair the model skipped (or answered twice, differently) is asked again on its own.
      for (const [i, pair] of batch.entries()) {
        if (decided[i] !== undefined) continue;
        const alone = await askPairs(llm, store, [pair], asking, index);
        decided[i] = alone.decisions[0];
        if (decided[i] === undefined) {
          undecided.push(pair);
          options.onFailure?.(
            alone.failure ?? {
              stage: 'disambiguate',
              unit: `pairs "${pair.a.name}"~"${pair.b.name}"`,
              code: 'LLM_OUTPUT_INVALID',
              message: 'no decision for this pair, also when asked alone',
              details: { batch: index },
            },
          );
        }
      }
      options.onProgress?.((done += batch.length), pairs.length);
      return batch.flatMap((pair, i): Confirmed[] => {
        const d = decided[i];
        if (d) decided_.add(idPair(pair.a.id, pair.b.id));
        // "Same" between a Person and a City is a wrong verdict, not a merge.
        if (!d?.same || !compatibleTypes(pair.a.type, pair.b.type)) return [];
        const withFacts = (e: DisambiguationEntity) => ({ ...e, facts: store.factCount(e.id) });
        return [{ a: withFacts(pair.a), b: withFacts(pair.b), canonical: canonicalFor(store, pair, d.canonical) }];
      });
    },
    options.signal ? { signal: options.signal } : {},
  );
  return { confirmed: results.flat(), decided: decided_, undecided };
}

/**
 * One call over `batch`: the decisions by pair index, matched by the id each reply item names
 * (never by position); undefined where the model gave none, or contradicted itself. A call
 * whose output stayed invalid decides nothing and returns its failure.
 */
async function askPairs(
  llm: Llm,
  store: DisambiguationStore,
  batch: CandidatePair[],
  options: DisambiguateOptions,
  index: number,
): Promise<{ decisions: (Decision | undefined)[]; failure: UnitFailure | null }> {
  const chars = options.contextChars ?? 150;
  const ids = batch.map((_, i) => `P${i + 1}`) as [string, ...string[]];
  const text = batch
    .map((p, i) =>
      [
        `Pair ${ids[i]}`,
        `A: "${fence(p.a.name)}" (${fence(p.a.type)})`,
        `<document>\n${fence(excerptAround(store.context(p.a.id), p.a.name, chars))}\n</document>`,
        `B: "${fence(p.b.name)}" (${fence(p.b.type)})`,
        `<document>\n${fence(excerptAround(store.context(p.b.id), p.b.name, chars))}\n</document>`,
        `Candidate because: ${fence(p.evidence.join('; '))}`,
      ].join('\n'),
    )
    .join('\n\n');
  const prompt = options.prompts.render('mder/disambiguate', { pairs: text });
  const maxTokens = options.maxTokens ?? 1024;
  if (batch.length > 1 && !fitsContext(llm, prompt, maxTokens)) {
    // A small context cannot take the whole batch with its excerpts: ask each half on its own.
    const half = Math.ceil(batch.length / 2);
    const [first, second] = [
      await askPairs(llm, store, batch.slice(0, half), options, index),
      await askPairs(llm, store, batch.slice(half), options, index),
    ];
    return { decisions: [...first.decisions, ...second.decisions], failure: first.failure ?? second.failure };
  }
  try {
    const { value } = await llm.generateJson(prompt, disambiguateReplySchema(ids), {
      ...options.sampling,
      maxTokens,
      signal: options.signal,
    });
    const byId = new Map<string, Decision | null>();
    for (const d of value.decisions) {
      const seen = byId.get(d.pair);
      // A decision keyed to another pair's name: the numbering slipped, and it decides nothing.
      const pair = batch[ids.indexOf(d.pair)]!;
      if (!sameKey(d.a, pair.a.name) || !sameKey(d.b, pair.b.name)) byId.set(d.pair, null);
      else if (seen === undefined) byId.set(d.pair, { same: d.same, canonical: d.canonical });
      else if (seen !== null && seen.same !== d.same) byId.set(d.pair, null);
    }
    return { decisions: ids.map((id) => byId.get(id) ?? undefined), failure: null };
  } catch (error) {
    const failure = asUnitFailure(
      error,
      'disambiguate',
      `pairs ${batch.map((p) => `"${p.a.name}"~"${p.b.name}"`).join(', ')}`,
      { batch: index },
    );
    return { decisions: batch.map(() => undefined), failure };
  }
}

/**
 * The canonical name of a confirmed pair as the model proposed it, cleaned of a "(Type)" or
 * "(other form)" suffix. A name that already belongs to a third entity would pull that one into
 * the merge unconfirmed: then (and when the model gave none) one of the pair's own names is used.
 */
function canonicalFor(store: DisambiguationStore, pair: CandidatePair, proposed: string): string {
  const { name } = splitName(proposed, pair.a.type);
  const holder = name ? store.entityNamed(name) : undefined;
  if (name && (!holder || holder.id === pair.a.id || holder.id === pair.b.id)) return name;
  return shorter(pair.a.name, pair.b.name);
}

/**
 * Groups of confirmed pairs, as cliques: two groups join on a confirmed pair only when every pair
 * across them is confirmed and of compatible types, so one wrong verdict cannot chain unrelated
 * entities together (A~B and B~C without A~C stay two merges at most). Each group's canonical name
 * is the one proposed most often for it; ties go to the name its members use most (the facts of
 * the members named so: the established form beats a variant one reply kept as written), then
 * the shorter, then alphabetical. The member already named so is kept, else the oldest.
 */
export function planMerges(confirmed: readonly Confirmed[]): MergeGroup[] {
  const byId = new Map<number, DisambiguationEntity>();
  const agreed = new Set(confirmed.map((c) => idPair(c.a.id, c.b.id)));
  const groupOf = new Map<number, number[]>();
  for (const c of confirmed) {
    byId.set(c.a.id, c.a);
    byId.set(c.b.id, c.b);
    const x = groupOf.get(c.a.id) ?? [c.a.id];
    const y = groupOf.get(c.b.id) ?? [c.b.id];
    if (x === y) continue;
    const fits = (i: number, j: number) =>
      agreed.has(idPair(i, j)) && compatibleTypes(byId.get(i)!.type, byId.get(j)!.type);
    if (!x.every((i) => y.every((j) => fits(i, j)))) continue;
    const joined = [...x, ...y];
    for (const id of joined) groupOf.set(id, joined);
  }
  const groups = [...new Set(groupOf.values())].filter((g) => g.length > 1).map((g) => [...g].sort((a, b) => a - b));
  return groups
    .sort((a, b) => a[0]! - b[0]!)
    .map((ids) => {
      const members = ids.map((id) => byId.get(id)!);
      const inGroup = new Set(ids);
      const votes = new Map<string, { name: string; count: number }>();
      for (const c of confirmed) {
        if (!inGroup.has(c.a.id) || !inGroup.has(c.b.id)) continue;
        const key = nameKey(c.canonical);
        votes.set(key, { name: votes.get(key)?.name ?? c.canonical, count: (votes.get(key)?.count ?? 0) + 1 });
      }
      const use = (key: string) =>
        members
          .filter((m) => nameKey(m.name) === key || (m.aliases ?? []).some((a) => nameKey(a) === key))
          .reduce((sum, m) => sum + 1 + (m.facts ?? 0), 0);
      const [best] = [...votes.entries()].sort(
        ([ka, a], [kb, b]) =>
          b.count - a.count || use(kb) - use(ka) || a.name.length - b.name.length || a.name.localeCompare(b.name),
      );
      const canonicalName = best![1].name;
      const keep = members.find((m) => nameKey(m.name) === nameKey(canonicalName)) ?? members[0]!;
      return { keepId: keep.id, mergeIds: ids.filter((id) => id !== keep.id), canonicalName };
    });
}

/** Up to `maxChars` of `text` centred on the first mention of `name` (case-insensitive). */
export function excerptAround(text: string, name: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const at = text.toLowerCase().indexOf(name.toLowerCase());
  const start = Math.max(0, Math.min(text.length - maxChars, (at < 0 ? 0 : at) - Math.floor(maxChars / 3)));
  return `${start > 0 ? '…' : ''}${text.slice(start, start + maxChars)}${start + maxChars < text.length ? '…' : ''}`;
}

/** Key of a pair of entity ids, in either order. */
function idPair(a: number, b: number): string {
  return a < b ? `${a}:${b}` : `${b}:${a}`;
}

function pairKey(a: string, b: string): string {
  const [x, y] = [nameKey(a), nameKey(b)].sort();
  return `${x}\u0000${y}`;
}

function shorter(a: string, b: string): string {
  return a.length <= b.length ? a : b;
}
