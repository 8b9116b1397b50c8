import type { Llm, LlmCallOptions, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';
import { askInBatches, type BatchMiss } from './askInBatches.js';

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
  /** Completion budget per triple (a call gets this times its triples, plus a little for the JSON; a sentence of context with its JSON entry). Default: 128. */
  maxTokensPerTriple?: number;
  /** Triples described per call at most; a chunk with more is split. Default: 24. */
  maxTriplesPerCall?: number;
  /** Sampling of the calls (another seed for a chunk asked again after a failed run). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  signal?: AbortSignal;
}

export interface EnrichResult {
  /** The description of each triple of `input.triples`, in that order; null for a triple that got none. */
  descriptions: (string | null)[];
  /** Triples (by index) that got no description, and why. */
  misses: BatchMiss[];
  usage: LlmUsage;
}

/** Tokens of a reply's JSON beyond the descriptions themselves. */
const REPLY_OVERHEAD = 32;

/**
 * Enrich: describes the triples of one chunk, with the chunk's neighbours (and any other chunk a
 * triple also came from) as context, so the shared context is paid once per call rather than once
 * per triple. Replies are matched to triples by id; a chunk whose descriptions would not fit one
 * call's output (or the context) is split, and a triple the model skipped is asked again alone.
 */
export async function enrichChunk(llm: Llm, input: EnrichInput, options: EnrichOptions): Promise<EnrichResult> {
  if (input.triples.length === 0) throw new RangeError('enrichChunk: no triples');
  const perTriple = options.maxTokensPerTriple ?? 128;
  // A passage there is none of is left out of the prompt (not written as empty): Enrich is one
  // call per chunk or more, and most chunks have no other source chunk, many no neighbour.
  const section = (part: string, text: string | null): string =>
    text ? `<document part="${part}">\n${fence(text)}\n</document>\n` : '';
  const context = {
    before: section('previous', input.previous),
    chunk: fence(input.current),
    after: section('next', input.next) + section('other', input.other.join('\n\n')),
  };
  const { texts, misses, usage } = await askInBatches(llm, {
    items: input.triples,
    render: (triples) =>
      options.prompts.render('mder/enrich', {
        ...context,
        triples: fence(triples.map((t, i) => `${i + 1}. ${t.source} | ${t.relation} | ${t.target}`).join('\n')),
      }),
    listKey: 'descriptions',
    textKey: 'description',
    // The object, not the subject: a chunk's triples mostly share their subject. The relation
    // tells apart triples with one object, so they share a call (each call re-sends the chunk).
    keyField: 'object',
    keyOf: (t) => t.target,
    qualifier: { field: 'relation', of: (t) => t.relation },
    maxTokens: (triples) => REPLY_OVERHEAD + perTriple * triples.length,
    maxItemsPerCall: options.maxTriplesPerCall ?? 24,
    sampling: options.sampling,
    signal: options.signal,
  });
  return { descriptions: texts, misses, usage };
}
