import type { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import { dropGrammarNulls, type JsonSchema } from './grammarSchema.js';
import {
  LLM_CALL_DEFAULTS,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmStopReason,
  type LlmUsage,
  type RenderedPrompt,
} from './Llm.js';

/**
 * What every Llm does with a structured reply: parse it, drop the nulls the grammar allowed in
 * optional properties, validate with the zod schema. Shared by the local and the server-side model.
 */
export function parseStructuredReply(
  raw: string,
  schema: z.ZodType,
  json: JsonSchema,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const result = schema.safeParse(dropGrammarNulls(parsed, json));
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: result.error.message };
}

/**
 * A retry at temperature 0 would repeat the same output, so the one retry of a failed reply
 * samples a little, seeded; a call with its own seed retries with another one derived from it.
 */
export function retrySampling(temperature: number, seed?: number): { temperature: number; seed: number } {
  return { temperature: Math.max(temperature, 0.3), seed: 7 + (seed ?? 0) };
}

/** The sampling of a call's first attempt: its temperature (default greedy) and seed when set. */
export function firstSampling(options: LlmCallOptions): Sampling {
  const temperature = options.temperature ?? LLM_CALL_DEFAULTS.temperature;
  return options.seed === undefined ? { temperature } : { temperature, seed: options.seed };
}

export interface Sampling {
  temperature: number;
  seed?: number;
}

/**
 * The structured call every Llm makes: generate (constrained by the caller's grammar or
 * `json_schema`), parse and validate; when the reply fails, once more with retry sampling (the
 * listeners are told to drop the first attempt's streamed text), then LLM_OUTPUT_INVALID carrying
 * the tokens both attempts spent (`details` adds what the caller knows, e.g. the endpoint).
 */
export async function generateStructured<S extends z.ZodType>(
  prompt: RenderedPrompt,
  schema: S,
  json: JsonSchema,
  options: LlmCallOptions,
  generate: (sampling: Sampling) => Promise<{ text: string; stopReason: LlmStopReason; usage: LlmUsage }>,
  details: Record<string, unknown> = {},
): Promise<LlmJsonResult<z.infer<S>>> {
  const usage: LlmUsage = { promptTokens: 0, completionTokens: 0, durationMs: 0, cached: false };
  const temperature = options.temperature ?? LLM_CALL_DEFAULTS.temperature;
  let raw = '';
  let reason = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    if (attempt > 0) options.onTextRestart?.();
    const result = await generate(attempt === 0 ? firstSampling(options) : retrySampling(temperature, options.seed));
    usage.promptTokens += result.usage.promptTokens;
    usage.completionTokens += result.usage.completionTokens;
    usage.durationMs += result.usage.durationMs;
    if (result.usage.reasoningTokens !== undefined)
      usage.reasoningTokens = (usage.reasoningTokens ?? 0) + result.usage.reasoningTokens;
    raw = result.text;
    const parsed = parseStructuredReply(raw, schema, json);
    if (parsed.ok) return { value: parsed.value as z.infer<S>, usage };
    reason = result.stopReason === 'maxTokens' ? `${parsed.reason} (stopped at maxTokens)` : parsed.reason;
  }
  throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: model output failed its schema twice: ${reason}`, {
    // The tokens were spent even though the reply is unusable: callers count them.
    details: { prompt: prompt.name, promptVersion: prompt.version, raw, reason, usage, ...details },
  });
}

/**
 * The complete object (or array) entries of the array under `key` in a JSON reply cut mid-way (generation stopped
 * at the token limit): each entry whose closing bracket was written is parsed; the entry cut
 * short and anything after it are left out. The caller checks each entry against its schema.
 */
export function salvageArrayEntries(raw: string, key: string): unknown[] {
  const start = raw.search(new RegExp(`"${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\s*:\\s*\\[`));
  if (start < 0) return [];
  const entries: unknown[] = [];
  let i = raw.indexOf('[', start) + 1;
  let depth = 0;
  let entryStart = -1;
  let inString = false;
  for (; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      if (depth === 0) entryStart = i;
      depth++;
    } else if (c === '}' || c === ']') {
      if (depth === 0) break; // the array's own end: the reply was not cut inside it
      depth--;
      if (depth === 0) {
        try {
          entries.push(JSON.parse(raw.slice(entryStart, i + 1)));
        } catch {
          // a malformed entry is skipped; the next one may be whole
        }
        entryStart = -1;
      }
    }
  }
  return entries;
}
