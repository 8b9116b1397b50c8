import type { NewPartialSummary } from '../kb/types.js';
import type { Llm, LlmCallOptions, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';
import { addUsage, askInBatches, noUsage } from './askInBatches.js';

export interface ReduceEntity {
  id: number;
  name: string;
  type: string;
  /** One line per triple the entity takes part in: its description, or the verbalised triple. */
  facts: readonly string[];
  /** The triple of each fact, in the same order: a hub's partial summaries cite the chunks of theirs. Default: unknown. */
  factTripleIds?: readonly number[];
}

export interface ReduceBatchingOptions {
  /** Token budget of the fact lines one call reads (the prompt's fixed text comes on top). Default: 1200. */
  maxInputTokens?: number;
  /** Entities per call at most. Default: 12. */
  maxEntitiesPerCall?: number;
}

export interface ReduceOptions extends ReduceBatchingOptions {
  prompts: PromptLibrary;
  /** Completion budget of one summary at most (its length grows with the facts up to this). Default: 496. */
  maxTokensPerEntity?: number;
  /** Sampling of the calls (another seed for entities asked again after a failed run). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  signal?: AbortSignal;
}

/**
 * Entities summarised together: several whose facts fit one call, or a single hub entity whose
 * facts do not (summarised hierarchically, see {@link reduceUnit}).
 */
export type ReduceUnit = { kind: 'batch'; entities: ReduceEntity[] } | { kind: 'hub'; entity: ReduceEntity };

export interface ReduceUnitResult {
  /** Summary by entity id. */
  summaries: Map<number, string>;
  /**
   * A hub entity's partial summaries of its facts (the first level, each of a group of facts), by
   * entity id: kept beside the capped summary, which cannot hold every fact (see kb/PartialSummaryRepository.ts).
   */
  partials: Map<number, NewPartialSummary[]>;
  /** Entities (or parts of a hub's facts) whose summary could not be written, and why. */
  misses: { id: number; reason: string }[];
  usage: LlmUsage;
}

/** Summary length by number of facts: two facts a sentence, 3 to 12 sentences. */
const sentencesFor = (facts: number): number => Math.min(12, Math.max(3, Math.ceil(facts / 2)));
const TOKENS_PER_SENTENCE = 40;
const REPLY_OVERHEAD = 16;
/** Levels of partial summaries at most (each level shrinks the text at least threefold: see {@link partialBudget}). */
const MAX_LEVELS = 6;

/** One entry of a reduce call: an entity's facts, or one part of a hub entity's facts. */
interface ReduceItem {
  name: string;
  type: string;
  lines: readonly string[];
  /** Facts of the entity these lines stand for (the summary's length follows it). */
  factCount: number;
  /** Set for a partial summary: which facts of how many. */
  part?: { first: number; last: number; of: number };
  /** Set when the lines are partial summaries of all the entity's facts. */
  combining?: boolean;
  maxTokens: number;
}

/**
 * Packs entities whose facts fit the input budget into batches; an entity whose facts do not fit
 * is a hub unit of its own. Every fact of every entity is read: nothing is cut.
 */
export function planReduceUnits(
  entities: readonly ReduceEntity[],
  countTokens: (text: string) => number,
  options: ReduceBatchingOptions = {},
): ReduceUnit[] {
  const budget = options.maxInputTokens ?? 1200;
  const maxPer = options.maxEntitiesPerCall ?? 12;
  const units: ReduceUnit[] = [];
  let current: ReduceEntity[] = [];
  let used = 0;
  for (const entity of entities) {
    const cost = factTokens(distinctFacts(entity.facts), countTokens);
    if (cost > budget) {
      units.push({ kind: 'hub', entity });
      continue;
    }
    if (current.length > 0 && (used + cost > budget || current.length >= maxPer)) {
      units.push({ kind: 'batch', entities: current });
      current = [];
      used = 0;
    }
    current.push(entity);
    used += cost;
  }
  if (current.length > 0) units.push({ kind: 'batch', entities: current });
  return units;
}

/**
 * Reduce: summarises one unit. A batch is one call (split further when its summaries would not
 * fit the context), with replies matched to entities by id and missing ones asked again alone.
 * A hub's facts are cut into consecutive groups that fit the budget, each group gets a partial
 * summary, and the partials (grouped again while they do not fit) are summarised into one, so
 * every fact reaches the summary.
 */
export async function reduceUnit(llm: Llm, unit: ReduceUnit, options: ReduceOptions): Promise<ReduceUnitResult> {
  const usage = noUsage();
  const summaries = new Map<number, string>();
  const partials = new Map<number, NewPartialSummary[]>();
  const misses: { id: number; reason: string }[] = [];
  const ask = async (items: readonly ReduceItem[], maxPerCall: number) => {
    const result = await askInBatches(llm, {
      items,
      render: (part) =>
        options.prompts.render('mder/reduce', {
          entities: part.map((item, i) => `${i + 1}. ${itemBlock(item)}`).join('\n\n'),
        }),
      listKey: 'summaries',
      textKey: 'summary',
      keyField: 'name',
      keyOf: (item) => item.name,
      maxTokens: (part) => part.reduce((sum, item) => sum + item.maxTokens, REPLY_OVERHEAD),
      maxItemsPerCall: maxPerCall,
      sampling: options.sampling,
      signal: options.signal,
    });
    addUsage(usage, result.usage);
    return result;
  };
  /**
   * A summary's budget: its sentences, and at least the length of the facts it is to keep (every
   * distinct one) with room to say what the entity is first; long source sentences (40+ tokens)
   * restated within the sentence count would otherwise be cut and the whole call asked again.
   */
  const summaryTokens = (facts: number, factText = 0): number =>
    Math.min(
      options.maxTokensPerEntity ?? 496,
      REPLY_OVERHEAD + Math.max(TOKENS_PER_SENTENCE * sentencesFor(facts), factText + TOKENS_PER_SENTENCE / 2),
    );

  if (unit.kind === 'batch') {
    const items = unit.entities.map((e): ReduceItem => {
      const lines = distinctFacts(e.facts);
      return {
        name: e.name,
        type: e.type,
        lines,
        factCount: lines.length,
        maxTokens: summaryTokens(
          lines.length,
          factTokens(lines, (t) => llm.countTokens(t)),
        ),
      };
    });
    const result = await ask(items, options.maxEntitiesPerCall ?? 12);
    unit.entities.forEach((e, i) => result.texts[i] && summaries.set(e.id, result.texts[i]));
    for (const miss of result.misses) misses.push({ id: unit.entities[miss.index]!.id, reason: miss.reason });
    return { summaries, partials, misses, usage };
  }

  const { entity } = unit;
  const budget = options.maxInputTokens ?? 1200;
  const countTokens = (text: string): number => llm.countTokens(text);
  const partialBudget = Math.max(TOKENS_PER_SENTENCE, Math.floor(budget / 3));
  let lines: readonly string[] = entity.facts;
  for (let level = 0; factTokens(lines, countTokens) > budget; level++) {
    const groups = groupLines(lines, budget, countTokens);
    if (level >= MAX_LEVELS || groups.length <= 1) break;
    let first = 1;
    const items = groups.map((group): ReduceItem => {
      const part = { first, last: first + group.length - 1, of: lines.length };
      first += group.length;
      return {
        name: entity.name,
        type: entity.type,
        lines: group,
        factCount: group.length,
        part,
        combining: level > 0,
        maxTokens: Math.min(partialBudget, summaryTokens(group.length)),
      };
    });
    const result = await ask(items, 1);
    const written: { text: string | null; part: NonNullable<ReduceItem['part']> }[][] = result.texts.map((text, i) => [
      { text, part: items[i]!.part! },
    ]);
    // A group the model gave no partial summary for is asked again in two halves (another prompt, another answer).
    for (const miss of result.misses) {
      const item = items[miss.index]!;
      const half = Math.ceil(item.lines.length / 2);
      const halves = item.lines.length > 1 ? [item.lines.slice(0, half), item.lines.slice(half)] : [];
      const part = item.part!;
      const ranges = [
        { ...part, last: part.first + half - 1 },
        { ...part, first: part.first + half },
      ];
      const retry =
        halves.length > 0
          ? await ask(
              halves.map((lines, h) => ({
                ...item,
                lines,
                part: ranges[h],
                factCount: lines.length,
                maxTokens: Math.min(partialBudget, summaryTokens(lines.length)),
              })),
              1,
            )
          : null;
      written[miss.index] = retry ? retry.texts.map((text, h) => ({ text, part: ranges[h]! })) : [{ text: null, part }];
      if (retry && retry.misses.length === 0) continue;
      misses.push({
        id: entity.id,
        reason:
          `${level === 0 ? 'facts' : 'partial summaries'} ${part.first}–${part.last} of ${part.of} ` +
          `(or some of them) reached no partial summary: ${(retry?.misses[0] ?? miss).reason}`,
      });
    }
    const kept = written.flat().filter((w): w is { text: string; part: typeof w.part } => w.text !== null);
    if (level === 0)
      partials.set(
        entity.id,
        kept.map((w) => ({
          text: w.text,
          firstFact: w.part.first,
          lastFact: w.part.last,
          factCount: w.part.of,
          ...(entity.factTripleIds ? { tripleIds: entity.factTripleIds.slice(w.part.first - 1, w.part.last) } : {}),
        })),
      );
    lines = kept.map((w) => w.text);
    if (lines.length === 0) return { summaries, partials, misses, usage };
  }
  const final: ReduceItem = {
    name: entity.name,
    type: entity.type,
    lines,
    factCount: entity.facts.length,
    combining: lines !== entity.facts,
    maxTokens: summaryTokens(entity.facts.length),
  };
  const result = await ask([final], 1);
  if (result.texts[0]) summaries.set(entity.id, result.texts[0]);
  for (const miss of result.misses) misses.push({ id: entity.id, reason: miss.reason });
  return { summaries, partials, misses, usage };
}

/**
 * An entity's facts with repeated lines written once: triples stated by one sentence often get
 * its words as their description, and a line sent twice costs its tokens twice for nothing (the
 * prompt asks to merge repetitions). A hub's lines stay as they are: its partial summaries cite
 * facts by their position.
 */
function distinctFacts(facts: readonly string[]): readonly string[] {
  const distinct = [...new Set(facts)];
  return distinct.length === facts.length ? facts : distinct;
}

function factTokens(lines: readonly string[], countTokens: (text: string) => number): number {
  return lines.reduce((sum, line) => sum + countTokens(line) + 2, 0);
}

/** Consecutive groups of lines under the budget (a line larger than the budget is a group alone). */
function groupLines(lines: readonly string[], budget: number, countTokens: (text: string) => number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = countTokens(line) + 2;
    if (current.length > 0 && used + cost > budget) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(line);
    used += cost;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function itemBlock(item: ReduceItem): string {
  const sentences = sentencesFor(item.factCount);
  const head = [`Entity: ${fence(item.name)} (type: ${fence(item.type)})`];
  if (item.part)
    head.push(
      `Part: ${item.combining ? 'partial summaries' : 'facts'} ${item.part.first}–${item.part.last} of ${item.part.of} ` +
        `(summarise only these; at most ${sentences} sentences)`,
    );
  else
    head.push(
      `Length: at most ${sentences} sentences${item.combining ? ` (the lines are partial summaries of its ${item.factCount} facts)` : ''}`,
    );
  return `${head.join('\n')}\n<document>\n${fence(item.lines.map((l) => `- ${l}`).join('\n'))}\n</document>`;
}
