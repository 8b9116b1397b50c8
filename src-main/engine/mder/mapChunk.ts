import { z } from 'zod';
import type { Llm, LlmCallOptions, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';
import { nameKey, normaliseName, normaliseRelation, splitName } from './names.js';
import { PolyhopError } from '../base/errors.js';
import { splitSentences } from '../ingest/segment.js';
import { addUsage, noUsage } from './askInBatches.js';
import { salvageArrayEntries } from '../models/structuredReply.js';

/** Reply schema of `mder/map`. */
export const MapReplySchema = z.object({
  triples: z.array(
    z.object({
      subject: z.string(),
      subjectType: z.string(),
      relation: z.string(),
      object: z.string(),
      objectType: z.string(),
    }),
  ),
});

export interface ExtractedEntity {
  name: string;
  type: string;
  /** Other forms the model wrote beside the name in parentheses ("Ulisse (Ulysses)"): Disambiguate's evidence. */
  variants: string[];
}

export interface ExtractedTriple {
  source: string;
  relation: string;
  target: string;
}

export interface MapResult {
  /** Distinct entities of the chunk (first type seen wins for a name). */
  entities: ExtractedEntity[];
  /** Distinct, normalised triples; self-loops and empty parts are dropped. */
  triples: ExtractedTriple[];
  /** Replies cut at the completion budget that could not be split further: only their complete triples were kept. */
  cuts: number;
  usage: LlmUsage;
}

export interface MapOptions {
  prompts: PromptLibrary;
  /** Completion budget. Default: 2048. */
  maxTokens?: number;
  /** Times a text whose triples were cut at the budget is halved (at a sentence boundary) and mapped again. Default: 3. */
  maxSplits?: number;
  /** Sampling of the calls (another seed for a chunk asked again after a failed run). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  /**
   * Halve the text (at a sentence boundary) before the first call: for a chunk asked again after
   * it failed for length (its prompt refused by the context, or its reply cut). Default: false.
   */
  splitFirst?: boolean;
  signal?: AbortSignal;
}

/** Type used when the model leaves an entity's type empty. */
export const UNKNOWN_TYPE = 'Thing';

/**
 * Map: typed subject–relation–object triples from one chunk's English text. A dense chunk whose
 * triples do not fit the completion budget (the output is cut) is halved at a sentence boundary
 * and each half mapped, instead of losing all its triples.
 */
export async function mapChunk(
  llm: Llm,
  input: { title: string; englishText: string },
  options: MapOptions,
): Promise<MapResult> {
  const usage = noUsage();
  const extracted: z.infer<typeof MapReplySchema>['triples'] = [];
  let cuts = 0;
  const extract = async (text: string, splits: number): Promise<void> => {
    const prompt = options.prompts.render('mder/map', {
      title: fence(input.title).replace(/"/g, "'"),
      chunk: fence(text),
    });
    try {
      const result = await llm.generateJson(prompt, MapReplySchema, {
        ...options.sampling,
        maxTokens: options.maxTokens ?? 2048,
        signal: options.signal,
      });
      addUsage(usage, result.usage);
      extracted.push(...result.value.triples);
    } catch (error) {
      if (!isCut(error)) throw error;
      const halves = splits > 0 ? halve(text) : null;
      if (halves) {
        for (const half of halves) await extract(half, splits - 1);
        return;
      }
      // Nothing left to split: keep the triples the model finished before the budget ran out.
      const salvaged = salvageTriples(error as PolyhopError);
      if (salvaged.length === 0) throw error;
      addUsage(usage, spentUsage(error as PolyhopError));
      extracted.push(...salvaged);
      cuts++;
    }
  };
  const splits = options.maxSplits ?? 3;
  const halves = options.splitFirst ? halve(input.englishText) : null;
  if (halves) for (const half of halves) await extract(half, Math.max(0, splits - 1));
  else await extract(input.englishText, splits);
  const entities = new Map<string, ExtractedEntity>();
  const triples = new Map<string, ExtractedTriple>();
  const entity = (rawName: string, rawType: string): string | null => {
    const { name, variant } = splitName(rawName, rawType);
    if (name === '') return null;
    const key = nameKey(name);
    if (!entities.has(key)) entities.set(key, { name, type: normaliseName(rawType) || UNKNOWN_TYPE, variants: [] });
    const entry = entities.get(key)!;
    if (variant && !entry.variants.some((v) => nameKey(v) === nameKey(variant))) entry.variants.push(variant);
    return entry.name;
  };
  for (const t of extracted) {
    const relation = normaliseRelation(t.relation);
    const source = entity(t.subject, t.subjectType);
    const target = entity(t.object, t.objectType);
    if (!source || !target || relation === '' || nameKey(source) === nameKey(target)) continue;
    triples.set(`${nameKey(source)}\u0000${relation}\u0000${nameKey(target)}`, { source, relation, target });
  }
  // Entities only named in dropped triples carry no fact; keep those some triple uses.
  const used = new Set([...triples.values()].flatMap((t) => [nameKey(t.source), nameKey(t.target)]));
  return {
    entities: [...entities.entries()].filter(([k]) => used.has(k)).map(([, e]) => e),
    triples: [...triples.values()],
    cuts,
    usage,
  };
}

/** Output stopped at the completion budget (LlamaCppLlm says so in the reason of LLM_OUTPUT_INVALID). */
function isCut(error: unknown): boolean {
  return (
    error instanceof PolyhopError &&
    error.code === 'LLM_OUTPUT_INVALID' &&
    /maxTokens/.test(`${error.message} ${String(error.details.reason ?? '')}`)
  );
}

const TripleSchema = MapReplySchema.shape.triples.element;

/** The complete triples of a cut reply (its last attempt), each checked against the triple schema. */
function salvageTriples(error: PolyhopError): z.infer<typeof TripleSchema>[] {
  const raw = typeof error.details.raw === 'string' ? error.details.raw : '';
  return salvageArrayEntries(raw, 'triples').flatMap((entry) => {
    const parsed = TripleSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The tokens a failed call spent (LLM_OUTPUT_INVALID carries them). */
function spentUsage(error: PolyhopError): LlmUsage {
  const spent = error.details.usage as Partial<LlmUsage> | undefined;
  return {
    promptTokens: spent?.promptTokens ?? 0,
    completionTokens: spent?.completionTokens ?? 0,
    durationMs: spent?.durationMs ?? 0,
    cached: false,
  };
}

/** The text in two at the sentence boundary nearest its middle; null for a single sentence. */
function halve(text: string): [string, string] | null {
  const sentences = splitSentences(text);
  if (sentences.length < 2) return null;
  const middle = text.length / 2;
  let cut = sentences[1]!.start;
  for (const s of sentences.slice(1)) if (Math.abs(s.start - middle) < Math.abs(cut - middle)) cut = s.start;
  return [text.slice(0, cut).trim(), text.slice(cut).trim()];
}
