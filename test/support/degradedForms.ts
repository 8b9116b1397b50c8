import type { LlmCallOptions } from '../../src-main/engine/models/Llm.js';
import { modelChunks } from './modelChunks.js';
import { qwen3CountTokens as countTokens } from './qwen3Tokens.js';
import { hasNumericId } from './replyPaths.js';
import { batchedPassages } from './summariseBatchPrompt.js';

/**
 * How UncooperativeLlm tells what a reply's values are (by their keys: names, vocabulary terms,
 * verdicts, scores) and the wrong forms a small model writes them in.
 */

/** Keys whose strings are names (of entities, answers, placeholders). */
export const NAME_KEY = /^(subject|object|source|target|canonical|name|entity|value)$/i;
/** Keys whose strings are closed vocabularies or references: a model copies them. */
export const FIXED_KEY = /(type|relation|id|ids|direction|dependsOn|language)$/i;
/** Booleans that are a model's verdict on its input. */
export const VERDICT_KEY = /^(same|found|consistent|sufficient)$/;
/** Numbers that are a judge's score. */
export const SCORE_KEY = /(score|directness|clarity|relevance)$/i;
/** Variables holding the text a translation prompt translates. */
export const SOURCE_VARIABLE = ['chunk', 'question', 'text'] as const;
/** A placeholder as the engine writes it (`?x`). */
export const PLACEHOLDER = /^\?[A-Za-z]\w*$/;
/** The spellings a model writes instead of a placeholder. */
export const PLACEHOLDER_SPELLINGS = (p: string): string[] => [
  p.slice(1),
  `[${p.slice(1)}]`,
  `<${p.slice(1)}>`,
  '?',
  'unknown',
];
/** Openings of reasoning a model writes before its answer. */
export const REASONING = [
  'Let me check the passages first. ',
  'Based on the given information, ',
  'Thinking step by step: the text says that ',
];

/**
 * A repetition loop: the text, then one phrase of it again and again past `room` tokens (greedy
 * decoding stuck in a cycle until the budget stops it; JSON so cut is unterminated).
 */
export function loop(text: string, room: number): string {
  const tail = text.slice(Math.max(0, text.length - 40)) || 'and ';
  let out = text.slice(0, Math.max(0, text.length - 2));
  while (countTokens(out) <= room) out += tail.repeat(Math.max(1, Math.ceil(room / 8)));
  return out;
}

/** Generated text to `onTextChunk` a few tokens at a time, as a model streams it (a JSON call's raw JSON included). */
export function stream(text: string, options: LlmCallOptions): void {
  if (options.onTextChunk) for (const chunk of modelChunks(text)) options.onTextChunk(chunk);
}

/** A vocabulary term or reference as a model may miscopy it: "_" as a space, another casing, "q2" as "2". */
export function driftFixed(text: string): string {
  if (text.includes('_')) return text.replaceAll('_', ' ');
  if (/^[a-z]+\d+$/i.test(text)) return text.replace(/^[a-z]+/i, '');
  if (/[A-Z]/.test(text)) return text.toLowerCase();
  return text.toUpperCase();
}

/**
 * The text a translation prompt was given, which a model may hand back untranslated; null for
 * other prompts. A batched one (`passages`) was given one per entry: the text of the passage whose
 * id the entry carries, at its text field only (see summariseBatchPrompt.ts).
 */
export function sourceText(
  prompt: string,
  variables: Readonly<Record<string, string>>,
  key?: string | number,
  entry?: unknown,
): string | null {
  // A summary asked for in English of a chunk in another language translates it too.
  const translating =
    prompt.endsWith('/translate') ||
    (variables.outputLanguage === 'English' && variables.language !== undefined && variables.language !== 'English');
  if (!translating) return null;
  const unfenced = (text: string): string => text.replace(/^<\w+>\n?|\n?<\/\w+>$/g, '').trim();
  if (variables.passages !== undefined) {
    if (key !== 'text' || !hasNumericId(entry)) return null;
    const passage = batchedPassages(variables.passages).find((p) => p.id === entry.id);
    return passage ? unfenced(passage.chunk) : null;
  }
  for (const name of SOURCE_VARIABLE) {
    const text = variables[name];
    if (text !== undefined) return unfenced(text);
  }
  return null;
}
