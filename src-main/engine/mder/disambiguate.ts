import { z } from 'zod';
import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent, yieldToEventLoop } from '../base/concurrency.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { ScoredId } from '../kb/types.js';
import { fence } from '../base/fence.js';
import { UnionFind } from './UnionFind.js';
import { lexicalEvidence, nameKey, splitName } from './names.js';
import { asUnitFailure, type UnitFailure } from './unitFailure.js';
import { fitsContext } from './askInBatches.js';

/**
 * Reply schema of one `mder/disambiguate` call: one decision per pair, each naming its pair by id
 * (the grammar only lets the model write the ids it was given). Pairs it skips are asked again.
 */
export const disambiguateReplySchema = (pairIds: readonly [string, ...string[]]) =>
  z.object({ decisions: z.array(z.object({ pair: z.enum(pairIds), same: z.boolean(), canonical: z.string() })).max(pairIds.length) });

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
  /** Pairs per LLM call. Default: 8. */
  pairsPerCall?: number;
  /** Characters of context per entity. Default: 300. */
  contextChars?: number;
  /** Completion budget per call. Default: 1024. */
  maxTokens?: number;
  /** Parallel LLM calls. Default: llm.parallelism. */
  concurrency?: number;
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
}

/** Merges applied per store call: a bounded stretch of work between yields to the event loop. */
const MERGES_PER_CALL = 32;

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
 * and the other form Map saw written beside a name. The LLM confirms each pair with the contexts;
 * confirmed pairs are merged with union-find under a canonical name, and renamed entities are
 * compared again until a round merges nothing.
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
  const asked = new Set<string>();
  const merges: MergeGroup[] = [];
  let queue = [...new Set(entityIds)];
  let rounds = 0;
  let pairsAsked = 0;
  while (queue.length > 0) {
    throwIfAborted(options.signal);
    rounds++;
    const live = queue.map((id) => store.entity(id)).filter((e): e is DisambiguationEntity => e !== undefined);
    const vectors = await embedder.embed(live.map((e) => e.name), { signal: options.signal });
    store.setNameVectors(
      live.map((e) => e.id),
      vectors,
    );
    const pairs = new Map<string, CandidatePair>();
    const consider = (entity: DisambiguationEntity, other: DisambiguationEntity | undefined, evidence: string) => {
      if (!other || other.id === entity.id) return;
      const key = pairKey(entity.name, other.name);
      if (nameKey(entity.name) === nameKey(other.name) || (asked.has(key) && !pairs.has(key))) return;
      const pair = pairs.get(key) ?? (entity.id < other.id ? { a: entity, b: other, evidence: [] } : { a: other, b: entity, evidence: [] });
      if (!pair.evidence.includes(evidence)) pair.evidence.push(evidence);
      pairs.set(key, pair);
      asked.add(key);
    };
    for (const [i, entity] of live.entries()) {
      // One KNN and one full-text search per entity: yield now and then so the front doors stay responsive.
      if (i % 64 === 63) await yieldToEventLoop();
      for (const hit of store.nearest(vectors[i]!, k + 1)) {
        if (hit.id !== entity.id && hit.score >= threshold) consider(entity, store.entity(hit.id), `name similarity ${hit.score.toFixed(2)}`);
      }
      for (const other of store.lexicalNeighbours(entity.name, k)) {
        const evidence = strongestLexicalEvidence(entity, other);
        if (evidence) consider(entity, other, evidence);
      }
      for (const variant of store.variants(entity.id)) consider(entity, store.entityNamed(variant), `also written "${variant}"`);
    }
    if (pairs.size === 0) break;
    pairsAsked += pairs.size;
    const confirmed = await confirmPairs(llm, store, [...pairs.values()], options);
    const groups = planMerges(confirmed);
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
  return { merges, rounds, pairsAsked };
}

function strongestLexicalEvidence(a: DisambiguationEntity, b: DisambiguationEntity): string | null {
  const order = ['same letters', 'acronym', 'same head noun'] as const;
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

async function confirmPairs(llm: Llm, store: DisambiguationStore, pairs: CandidatePair[], options: DisambiguateOptions): Promise<Confirmed[]> {
  const perCall = options.pairsPerCall ?? 8;
  const batches: CandidatePair[][] = [];
  for (let i = 0; i < pairs.length; i += perCall) batches.push(pairs.slice(i, i + perCall));
  let done = 0;
  const results = await mapConcurrent(batches, options.concurrency ?? llm.parallelism, async (batch, index, signal) => {
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
      if (!d?.same) return [];
      const withFacts = (e: DisambiguationEntity) => ({ ...e, facts: store.factCount(e.id) });
      return [{ a: withFacts(pair.a), b: withFacts(pair.b), canonical: canonicalFor(store, pair, d.canonical) }];
    });
  }, options.signal ? { signal: options.signal } : {});
  return results.flat();
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
  const chars = options.contextChars ?? 300;
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
    const [first, second] = [await askPairs(llm, store, batch.slice(0, half), options, index), await askPairs(llm, store, batch.slice(half), options, index)];
    return { decisions: [...first.decisions, ...second.decisions], failure: first.failure ?? second.failure };
  }
  try {
    const { value } = await llm.generateJson(prompt, disambiguateReplySchema(ids), { maxTokens, signal: options.signal });
    const byId = new Map<string, Decision | null>();
    for (const d of value.decisions) {
      const seen = byId.get(d.pair);
      if (seen === undefined) byId.set(d.pair, { same: d.same, canonical: d.canonical });
      else if (seen !== null && seen.same !== d.same) byId.set(d.pair, null);
    }
    return { decisions: ids.map((id) => byId.get(id) ?? undefined), failure: null };
  } catch (error) {
    const failure = asUnitFailure(error, 'disambiguate', `pairs ${batch.map((p) => `"${p.a.name}"~"${p.b.name}"`).join(', ')}`, { batch: index });
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
 * Union-find over confirmed pairs. Each group's canonical name is the one proposed most often
 * for it; ties go to the name its members use most (the facts of the members named so: the
 * established form beats a variant one reply kept as written), then the shorter, then
 * alphabetical. The member already named so is kept, else the oldest (smallest id).
 */
export function planMerges(confirmed: readonly Confirmed[]): MergeGroup[] {
  const uf = new UnionFind();
  const byId = new Map<number, DisambiguationEntity>();
  for (const c of confirmed) {
    uf.union(c.a.id, c.b.id);
    byId.set(c.a.id, c.a);
    byId.set(c.b.id, c.b);
  }
  return uf.groups().map((ids) => {
    const members = ids.map((id) => byId.get(id)!);
    const votes = new Map<string, { name: string; count: number }>();
    for (const c of confirmed) {
      if (uf.find(c.a.id) !== uf.find(ids[0]!)) continue;
      const key = nameKey(c.canonical);
      votes.set(key, { name: votes.get(key)?.name ?? c.canonical, count: (votes.get(key)?.count ?? 0) + 1 });
    }
    const use = (key: string) => members.filter((m) => nameKey(m.name) === key || (m.aliases ?? []).some((a) => nameKey(a) === key)).reduce((sum, m) => sum + 1 + (m.facts ?? 0), 0);
    const [best] = [...votes.entries()].sort(
      ([ka, a], [kb, b]) => b.count - a.count || use(kb) - use(ka) || a.name.length - b.name.length || a.name.localeCompare(b.name),
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

function pairKey(a: string, b: string): string {
  const [x, y] = [nameKey(a), nameKey(b)].sort();
  return `${x}\u0000${y}`;
}

function shorter(a: string, b: string): string {
  return a.length <= b.length ? a : b;
}
