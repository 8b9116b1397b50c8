import { z } from 'zod';
import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent, yieldToEventLoop } from '../base/concurrency.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { ScoredId } from '../kb/types.js';
import { fence } from '../base/fence.js';
import { UnionFind } from './UnionFind.js';
import { nameKey, normaliseName } from './names.js';
import { asUnitFailure, type UnitFailure } from './unitFailure.js';

export const disambiguateReplySchema = (pairs: number) =>
  z.object({ decisions: z.array(z.object({ same: z.boolean(), canonical: z.string() })).length(pairs) });

export interface DisambiguationEntity {
  id: number;
  name: string;
  type: string;
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
  /** A short excerpt of original text where the entity is mentioned. */
  context(id: number): string;
  /** Stores entity-name vectors (the KNN index) of the entities a round compares. */
  setNameVectors(ids: readonly number[], vectors: readonly Float32Array[]): void;
  /** Nearest entities by name vector, best first (may include `vector`'s own entity). */
  nearest(vector: Float32Array, k: number): ScoredId[];
  /**
   * Applies merges, all or none; returns each one's surviving entity id (which may differ from
   * `keepId` when the canonical name already exists).
   */
  merge(groups: readonly MergeGroup[]): number[];
}

export interface DisambiguateOptions {
  prompts: PromptLibrary;
  /** Cosine similarity of name vectors from which a pair goes to the LLM. Default: 0.95. */
  threshold?: number;
  /** Neighbours looked up per entity (blocking: never all pairs). Default: 10. */
  neighbours?: number;
  /** Pairs per LLM call. Default: 8. */
  pairsPerCall?: number;
  /** Characters of context per entity. Default: 300. */
  contextChars?: number;
  /** Completion budget per call. Default: 1024. */
  maxTokens?: number;
  /** Parallel LLM calls. Default: llm.parallelism. */
  concurrency?: number;
  /** A batch whose reply stayed invalid: its pairs are left unmerged and the batch is reported here. */
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

interface Pair {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
}

/**
 * Disambiguate: entity names whose embeddings are at least `threshold` similar (found by KNN
 * from the entities in `entityIds`, so an incremental run compares only new entities with all
 * others) are sent in batches with their contexts to the LLM, confirmed pairs are merged with
 * union-find under a canonical name, and renamed entities are compared again until a round
 * merges nothing.
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
    const pairs: Pair[] = [];
    for (const [i, entity] of live.entries()) {
      // One KNN search per entity over all of them: yield now and then so the front doors stay responsive.
      if (i % 64 === 63) await yieldToEventLoop();
      for (const hit of store.nearest(vectors[i]!, k + 1)) {
        if (hit.id === entity.id || hit.score < threshold) continue;
        const other = store.entity(hit.id);
        if (!other) continue;
        const key = pairKey(entity.name, other.name);
        if (asked.has(key) || nameKey(entity.name) === nameKey(other.name)) continue;
        asked.add(key);
        pairs.push(entity.id < other.id ? { a: entity, b: other } : { a: other, b: entity });
      }
    }
    if (pairs.length === 0) break;
    pairsAsked += pairs.length;
    const confirmed = await confirmPairs(llm, store, pairs, options);
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

interface Confirmed {
  a: DisambiguationEntity;
  b: DisambiguationEntity;
  canonical: string;
}

async function confirmPairs(llm: Llm, store: DisambiguationStore, pairs: Pair[], options: DisambiguateOptions): Promise<Confirmed[]> {
  const perCall = options.pairsPerCall ?? 8;
  const batches: Pair[][] = [];
  for (let i = 0; i < pairs.length; i += perCall) batches.push(pairs.slice(i, i + perCall));
  const chars = options.contextChars ?? 300;
  let done = 0;
  const results = await mapConcurrent(batches, options.concurrency ?? llm.parallelism, async (batch, index, signal) => {
    const text = batch
      .map((p, i) =>
        [
          `Pair ${i + 1}`,
          `A: "${fence(p.a.name)}" (${fence(p.a.type)})`,
          `<document>\n${fence(excerptAround(store.context(p.a.id), p.a.name, chars))}\n</document>`,
          `B: "${fence(p.b.name)}" (${fence(p.b.type)})`,
          `<document>\n${fence(excerptAround(store.context(p.b.id), p.b.name, chars))}\n</document>`,
        ].join('\n'),
      )
      .join('\n\n');
    try {
      const prompt = options.prompts.render('mder/disambiguate', { pairs: text });
      const { value } = await llm.generateJson(prompt, disambiguateReplySchema(batch.length), { maxTokens: options.maxTokens ?? 1024, signal });
      return batch.flatMap((p, i): Confirmed[] => {
        const d = value.decisions[i]!;
        const canonical = normaliseName(d.canonical);
        return d.same ? [{ ...p, canonical: canonical || shorter(p.a.name, p.b.name) }] : [];
      });
    } catch (error) {
      const failure = asUnitFailure(error, 'disambiguate', `pairs ${batch.map((p) => `"${p.a.name}"~"${p.b.name}"`).join(', ')}`, { batch: index });
      options.onFailure?.(failure);
      return [];
    } finally {
      options.onProgress?.((done += batch.length), pairs.length);
    }
  }, options.signal ? { signal: options.signal } : {});
  return results.flat();
}

/**
 * Union-find over confirmed pairs. Each group's canonical name is the one proposed most often
 * for it (ties: a name a member already has, then the shorter, then alphabetical); the member
 * already named so is kept, else the oldest (smallest id).
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
    const memberKeys = new Set(members.map((m) => nameKey(m.name)));
    const [best] = [...votes.entries()].sort(
      ([ka, a], [kb, b]) =>
        b.count - a.count ||
        Number(memberKeys.has(kb)) - Number(memberKeys.has(ka)) ||
        a.name.length - b.name.length ||
        a.name.localeCompare(b.name),
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
