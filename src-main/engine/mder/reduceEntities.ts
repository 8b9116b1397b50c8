import { z } from 'zod';
import type { Llm, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';

export const reduceReplySchema = (entities: number) => z.object({ summaries: z.array(z.string().trim().min(1)).length(entities) });

export interface ReduceEntity {
  id: number;
  name: string;
  type: string;
  /** One line per triple the entity takes part in: its description, or the verbalised triple. */
  facts: readonly string[];
}

export interface ReduceBatchingOptions {
  /** Token budget of the entity blocks of one call (the prompt's fixed text comes on top). Default: 1200. */
  maxInputTokens?: number;
  /** Entities per call at most. Default: 12. */
  maxEntitiesPerCall?: number;
}

export interface ReduceOptions extends ReduceBatchingOptions {
  prompts: PromptLibrary;
  /** Completion budget per entity. Default: 160. */
  maxTokensPerEntity?: number;
  signal?: AbortSignal;
}

/**
 * Packs entity blocks into calls under the token budget. An entity too large for the budget
 * alone goes into its own call with facts cut to fit, and the block says how many were left out.
 */
export function planReduceBatches(entities: readonly ReduceEntity[], countTokens: (text: string) => number, options: ReduceBatchingOptions = {}): ReduceBatch[] {
  const budget = options.maxInputTokens ?? 1200;
  const maxPer = options.maxEntitiesPerCall ?? 12;
  const batches: ReduceBatch[] = [];
  let current: ReduceBatch = { ids: [], blocks: [] };
  let used = 0;
  for (const entity of entities) {
    const block = entityBlock(entity, countTokens, budget);
    const cost = countTokens(block);
    if (current.ids.length > 0 && (used + cost > budget || current.ids.length >= maxPer)) {
      batches.push(current);
      current = { ids: [], blocks: [] };
      used = 0;
    }
    current.ids.push(entity.id);
    current.blocks.push(block);
    used += cost;
  }
  if (current.ids.length > 0) batches.push(current);
  return batches;
}

/** Entities summarised by one call: ids and their prompt blocks, in the same order. */
export interface ReduceBatch {
  ids: number[];
  blocks: string[];
}

function entityBlock(entity: ReduceEntity, countTokens: (text: string) => number, budget: number): string {
  const head = `Entity: ${fence(entity.name)} (type: ${fence(entity.type)})`;
  const lines: string[] = [];
  let used = countTokens(head) + 8;
  for (const fact of entity.facts) {
    const cost = countTokens(fact) + 1;
    if (used + cost > budget && lines.length > 0) break;
    lines.push(`- ${fact}`);
    used += cost;
  }
  const omitted = entity.facts.length - lines.length;
  if (omitted > 0) lines.push(`- (${omitted} more facts not shown)`);
  return `${head}\n<document>\n${fence(lines.join('\n'))}\n</document>`;
}

/**
 * Reduce: one call summarises a batch of entities (blocks from {@link planReduceBatches});
 * returns one English summary per block, in order.
 */
export async function reduceBatch(llm: Llm, blocks: readonly string[], options: ReduceOptions): Promise<{ summaries: string[]; usage: LlmUsage }> {
  if (blocks.length === 0) throw new RangeError('reduceBatch: no entities');
  const prompt = options.prompts.render('mder/reduce', { entities: blocks.map((b, i) => `${i + 1}. ${b}`).join('\n\n') });
  const maxTokens = Math.max(256, (options.maxTokensPerEntity ?? 160) * blocks.length);
  const { value, usage } = await llm.generateJson(prompt, reduceReplySchema(blocks.length), { maxTokens, signal: options.signal });
  return { summaries: value.summaries, usage };
}
