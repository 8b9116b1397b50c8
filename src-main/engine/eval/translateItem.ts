import { z } from 'zod';
import { fence } from '../base/fence.js';
import type { Llm, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { languageName } from '../ingest/preprocess/languageName.js';
import type { EvalItem } from './types.js';

export const TranslationReplySchema = z.object({
  question: z.string().min(1),
  answers: z.array(z.string()),
});

export interface TranslatedItem {
  question: string;
  /** Translated references, then the original ones as aliases (names often stay as they are). */
  answers: string[];
  /** `dataset` when the dataset ships a human translation, `llm` otherwise, `original` for the item's own language. */
  by: 'original' | 'dataset' | 'llm';
  usage?: LlmUsage;
}

/**
 * The question and its reference answers in `language` (as the seeds: prompt-guided LLM
 * translation of QA pairs, `prompts/eval/translate.md`). Human translations shipped with the
 * dataset win. Pass a caching Llm so a run translates each pair once.
 */
export async function translateItem(
  llm: Llm,
  prompts: PromptLibrary,
  item: EvalItem,
  language: string,
  signal?: AbortSignal,
): Promise<TranslatedItem> {
  if (language === item.language) return { question: item.question, answers: item.answers, by: 'original' };
  const human = item.translations?.[language];
  if (human) return { question: human.question, answers: dedupe([...human.answers, ...item.answers]), by: 'dataset' };
  const prompt = prompts.render('eval/translate', {
    source_language: languageName(item.language),
    target_language: languageName(language),
    question: fence(item.question),
    answers: fence(JSON.stringify(item.answers)),
  });
  const { value, usage } = await llm.generateJson(prompt, TranslationReplySchema, signal ? { signal } : {});
  // A reply with fewer answers keeps the originals for the rest; extra ones are dropped.
  const translated = item.answers.map((original, i) => value.answers[i]?.trim() || original);
  return { question: value.question.trim(), answers: dedupe([...translated, ...item.answers]), by: 'llm', usage };
}

function dedupe(list: readonly string[]): string[] {
  return [...new Set(list.filter((a) => a.trim()))];
}
