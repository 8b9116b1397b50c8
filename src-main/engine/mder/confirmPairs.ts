import { z } from 'zod';
import { mapConcurrent } from '../base/concurrency.js';
import type { Llm } from '../models/Llm.js';
import { fence } from '../base/fence.js';
import { differInNumber, splitName } from './names.js';
import { asUnitFailure, type UnitFailure } from './unitFailure.js';
import { fitsContext, keyOneOf, sameKey } from './askInBatches.js';
import { compatibleTypes } from './entityTypes.js';
import { excerptBlocks, type ExcerptEntity } from './excerptBlocks.js';
import {
  idPair,
  type CandidatePair,
  type Confirmed,
  type DisambiguateOptions,
  type DisambiguationEntity,
  type DisambiguationStore,
} from './disambiguationTypes.js';

/**
 * Reply schema of one `mder/disambiguate` call: one decision per pair, exactly as many as pairs,
 * each naming its pair by id (the grammar only lets the model write the ids it was given) and by
 * the names of its entities A and B, which the grammar lets be the batch's A and B names only
 * (checked: a decision keyed to another pair decides nothing). Pairs left without a usable
 * decision are asked again alone.
 */
export const disambiguateReplySchema = (
  pairIds: readonly [string, ...string[]],
  names: { a: readonly string[]; b: readonly string[] },
) =>
  z.object({
    decisions: z
      .array(
        z.object({
          pair: z.enum(pairIds),
          a: keyOneOf(names.a),
          b: keyOneOf(names.b),
          same: z.boolean(),
          canonical: z.string(),
        }),
      )
      .min(pairIds.length)
      .max(pairIds.length),
  });

type Decision = { same: boolean; canonical: string };

/** Decisions on a list of pairs: the confirmed ones, every pair decided either way (by ids), and those left undecided. */
interface Confirmations {
  confirmed: Confirmed[];
  decided: Set<string>;
  undecided: CandidatePair[];
}

/**
 * Asks the model about `pairs`, many per call (a pair it skipped or contradicted is asked again
 * alone); returns the pairs it confirmed, with their proposed canonical names. A pair whose names
 * differ in a number is decided "not the same" without a call.
 */
export async function confirmPairs(
  llm: Llm,
  store: DisambiguationStore,
  pairs: CandidatePair[],
  options: DisambiguateOptions,
): Promise<Confirmations> {
  const perCall = options.pairsPerCall ?? 24;
  const decided_ = new Set<string>();
  const undecided: CandidatePair[] = [];
  // Names that differ in a number are different things (the prompt says so): decided, not asked.
  const asked = pairs.filter((p) => {
    if (!differInNumber(p.a.name, p.b.name)) return true;
    decided_.add(idPair(p.a.id, p.b.id));
    return false;
  });
  const batches: CandidatePair[][] = [];
  for (let i = 0; i < asked.length; i += perCall) batches.push(asked.slice(i, i + perCall));
  let done = pairs.length - asked.length;
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
  // Each entity and its excerpt is written once per call, however many of its pairs the call
  // holds: the excerpts are most of the prompt, and an entity's candidates are asked together.
  const entityIds = new Map<number, string>();
  const entities: ExcerptEntity[] = [];
  const ref = (e: DisambiguationEntity): string => {
    let id = entityIds.get(e.id);
    if (id === undefined) {
      id = `E${entityIds.size + 1}`;
      entityIds.set(e.id, id);
      entities.push({
        line: `${id}: "${fence(e.name)}" (${fence(e.type)})`,
        name: e.name,
        context: store.context(e.id),
      });
    }
    return id;
  };
  const pairLines = batch.map((p, i) => `${ids[i]}: ${ref(p.a)} ~ ${ref(p.b)} (${fence(p.evidence.join('; '))})`);
  const prompt = options.prompts.render('mder/disambiguate', {
    entities: excerptBlocks(entities, chars),
    pairs: pairLines.join('\n'),
  });
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
    const { value } = await llm.generateJson(
      prompt,
      disambiguateReplySchema(ids, {
        a: batch.map((p) => p.a.name),
        b: batch.map((p) => p.b.name),
      }),
      {
        ...options.sampling,
        maxTokens,
        signal: options.signal,
      },
    );
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

function shorter(a: string, b: string): string {
  return a.length <= b.length ? a : b;
}
