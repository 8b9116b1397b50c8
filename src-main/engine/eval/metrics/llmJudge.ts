import { z } from 'zod';
import { fence } from '../../base/fence.js';
import type { Llm, LlmUsage } from '../../models/Llm.js';
import type { PromptLibrary } from '../../models/PromptLibrary.js';
import { languageName } from '../../ingest/preprocess/languageName.js';

/** The judge's reply: a short reason first (it grades better after saying why), then a grade on the prompt's 0–4 rubric. */
export const JudgeReplySchema = z.object({
  reason: z.string().max(600),
  grade: z.number().int().min(0).max(4),
});

export interface JudgeInput {
  question: string;
  /** Reference answers: the first is the expected answer, the rest accepted aliases. */
  expected: readonly string[];
  response: string;
  /** Language of the question; the judge is told to read all three in it. */
  language: string;
}

export interface JudgeVerdict {
  /** grade / 4, in [0, 1]. */
  score: number;
  grade: number;
  reason: string;
  usage: LlmUsage;
}

/**
 * LLM-as-judge (MDER-DR §4.4): the model reads question, expected answer and response and
 * grades relevance and faithfulness with a rubric that penalises missing, off-topic,
 * contradictory or hallucinated content (`prompts/eval/judge.md`).
 */
export async function llmJudge(
  llm: Llm,
  prompts: PromptLibrary,
  input: JudgeInput,
  signal?: AbortSignal,
): Promise<JudgeVerdict> {
  const [expected, ...aliases] = input.expected;
  const prompt = prompts.render('eval/judge', {
    language: languageName(input.language),
    question: fence(input.question),
    expected: fence(expected),
    aliases: fence(aliases.join(' | ')),
    response: fence(input.response),
  });
  const { value, usage } = await llm.generateJson(
    prompt,
    JudgeReplySchema,
    signal ? { signal, maxTokens: 400 } : { maxTokens: 400 },
  );
  return { score: value.grade / 4, grade: value.grade, reason: value.reason, usage };
}
