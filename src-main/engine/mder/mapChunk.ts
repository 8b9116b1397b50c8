import { z } from 'zod';
import type { Llm, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { fence } from '../base/fence.js';
import { nameKey, normaliseName, normaliseRelation, splitName } from './names.js';

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
  usage: LlmUsage;
}

export interface MapOptions {
  prompts: PromptLibrary;
  /** Completion budget. Default: 2048. */
  maxTokens?: number;
  signal?: AbortSignal;
}

/** Type used when the model leaves an entity's type empty. */
export const UNKNOWN_TYPE = 'Thing';

/** Map: typed subject–relation–object triples from one chunk's English text. */
export async function mapChunk(llm: Llm, input: { title: string; englishText: string }, options: MapOptions): Promise<MapResult> {
  const prompt = options.prompts.render('mder/map', { title: fence(input.title).replace(/"/g, "'"), chunk: fence(input.englishText) });
  const { value, usage } = await llm.generateJson(prompt, MapReplySchema, { maxTokens: options.maxTokens ?? 2048, signal: options.signal });
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
  for (const t of value.triples) {
    const relation = normaliseRelation(t.relation);
    const source = entity(t.subject, t.subjectType);
    const target = entity(t.object, t.objectType);
    if (!source || !target || relation === '' || nameKey(source) === nameKey(target)) continue;
    triples.set(`${nameKey(source)}\u0000${relation}\u0000${nameKey(target)}`, { source, relation, target });
  }
  // Entities only named in dropped triples carry no fact; keep those some triple uses.
  const used = new Set([...triples.values()].flatMap((t) => [nameKey(t.source), nameKey(t.target)]));
  return { entities: [...entities.entries()].filter(([k]) => used.has(k)).map(([, e]) => e), triples: [...triples.values()], usage };
}
