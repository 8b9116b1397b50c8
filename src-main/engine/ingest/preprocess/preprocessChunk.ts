import { z } from 'zod';
import type { Llm, LlmCallOptions, LlmUsage } from '../../models/Llm.js';
import type { PromptLibrary } from '../../models/PromptLibrary.js';
import { fence } from '../../base/fence.js';
import { isEnglish, languageName } from './languageName.js';

/** Reply schema of `ingest/summarise` and `ingest/translate`. */
export const PreprocessTextSchema = z.object({ text: z.string().trim().min(1) });

export interface PreprocessInput {
  /** Original chunk text (kept and cited; never replaced). */
  text: string;
  /** ISO 639-1 code of the chunk, or null when unknown (treated as English). */
  language: string | null;
  /** Original text of the previous and next chunk of the same document (windowed context). */
  previous: string | null;
  next: string | null;
}

export interface PreprocessResult {
  /** Windowed summary; null when summarisation is off. */
  summary: string | null;
  /** English text that feeds extraction. */
  englishText: string;
  usage: LlmUsage[];
}

export interface PreprocessOptions {
  prompts: PromptLibrary;
  /**
   * Summarise each chunk with its neighbours as context (MDER preprocessing). Default: true.
   * When false, English chunks pass through unchanged and other chunks are only translated.
   */
  summarise?: boolean;
  /**
   * Write the summary of a non-English chunk in the chunk's own language and translate it in a
   * second call. Default: false — one call writes the English summary directly, which halves
   * the calls; the original text stays the cited source either way.
   */
  summaryInSourceLanguage?: boolean;
  /** Completion budget per call. Default: 1024. */
  maxTokens?: number;
  /** Sampling of the calls (another seed for a chunk asked again after a failed run). Default: the Llm's. */
  sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>;
  signal?: AbortSignal;
}

/**
 * Preprocesses one chunk: windowed summary and English text. At most one LLM call per chunk
 * with the defaults (two with `summaryInSourceLanguage` for non-English chunks).
 * Throws PolyhopError `LLM_OUTPUT_INVALID` when a reply fails its schema after the Llm's retry.
 */
export async function preprocessChunk(
  llm: Llm,
  input: PreprocessInput,
  options: PreprocessOptions,
): Promise<PreprocessResult> {
  const call: LlmCallOptions = { ...options.sampling, maxTokens: options.maxTokens ?? 1024, signal: options.signal };
  const english = isEnglish(input.language);
  const usage: LlmUsage[] = [];
  const ask = async (name: string, vars: Record<string, string>): Promise<string> => {
    const result = await llm.generateJson(options.prompts.render(name, vars), PreprocessTextSchema, call);
    usage.push(result.usage);
    return result.value.text;
  };
  const translate = (text: string): Promise<string> =>
    ask('ingest/translate', { language: languageName(input.language), chunk: fence(text) });

  if (options.summarise === false) {
    return { summary: null, englishText: english ? input.text : await translate(input.text), usage };
  }
  const inSource = !english && options.summaryInSourceLanguage === true;
  // A neighbour the chunk lacks is left out of the prompt, not written as an empty part: most
  // documents are one chunk, and a call per chunk would pay the empty parts' tokens for nothing.
  const section = (part: string, text: string | null): string =>
    text?.trim() ? `<document part="${part}">\n${fence(text)}\n</document>\n` : '';
  const summary = await ask('ingest/summarise', {
    language: languageName(input.language),
    outputLanguage: inSource ? languageName(input.language) : 'English',
    before: section('previous', input.previous),
    chunk: fence(input.text),
    after: section('next', input.next),
  });
  return { summary, englishText: inSource ? await translate(summary) : summary, usage };
}
