import { z } from 'zod';
import type { Llm, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';

export const enrichReplySchema = (triples: number) => z.object({ descriptions: z.array(z.string().trim().min(1)).length(triples) });

export interface EnrichInput {
  /** English text of the chunk the triples were extracted from, and of its neighbours. */
  current: string;
  previous: string | null;
  next: string | null;
  /** English text of other chunks some of these triples were also extracted from. */
  other: readonly string[];
  triples: readonly { source: string; relation: string; target: string }[];
}

export interface EnrichOptions {
  prompts: PromptLibrary;
  /** Completion budget per triple (the call gets this times the number of triples, at least 256). Default: 96. */
  maxTokensPerTriple?: number;
  signal?: AbortSignal;
}

/**
 * Enrich: one call describes all triples of one chunk, with the chunk's neighbours (and any
 * other chunk a triple also came from) as context, so the shared context is paid once per chunk
 * rather than once per triple. Returns descriptions in the order of `input.triples`.
 */
export async function enrichChunk(llm: Llm, input: EnrichInput, options: EnrichOptions): Promise<{ descriptions: string[]; usage: LlmUsage }> {
  if (input.triples.length === 0) throw new RangeError('enrichChunk: no triples');
  const prompt = options.prompts.render('mder/enrich', {
    previous: fence(input.previous),
    chunk: fence(input.current),
    next: fence(input.next),
    other: fence(input.other.join('\n\n')),
    triples: fence(input.triples.map((t, i) => `${i + 1}. ${t.source} | ${t.relation} | ${t.target}`).join('\n')),
  });
  const maxTokens = Math.max(256, (options.maxTokensPerTriple ?? 96) * input.triples.length);
  const { value, usage } = await llm.generateJson(prompt, enrichReplySchema(input.triples.length), { maxTokens, signal: options.signal });
  return { descriptions: value.descriptions, usage };
}
