import type { z } from 'zod';
import { dropGrammarNulls, type JsonSchema } from './grammarSchema.js';

/**
 * What every Llm does with a structured reply: parse it, drop the nulls the grammar allowed in
 * optional properties, validate with the zod schema. Shared by the local and the server-side model.
 */
export function parseStructuredReply(raw: string, schema: z.ZodType, json: JsonSchema): { ok: true; value: unknown } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const result = schema.safeParse(dropGrammarNulls(parsed, json));
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: result.error.message };
}

/** A retry at temperature 0 would repeat the same output, so the one retry of a failed reply samples a little, seeded. */
export function retrySampling(temperature: number): { temperature: number; seed: number } {
  return { temperature: Math.max(temperature, 0.3), seed: 7 };
}
