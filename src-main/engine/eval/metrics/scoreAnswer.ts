import type { Embedder } from '../../models/Embedder.js';
import type { Llm, LlmUsage } from '../../models/Llm.js';
import type { PromptLibrary } from '../../models/PromptLibrary.js';
import type { AnswerScript } from './answerScript.js';
import { bleu } from './bleu.js';
import { embeddingSimilarity } from './embeddingSimilarity.js';
import { exactMatch } from './exactMatch.js';
import { llmJudge } from './llmJudge.js';
import { METRIC_ORDER, recallMetric } from './metricIds.js';
import { stripCitations } from './normalise.js';
import { retrievalRecall } from './retrievalRecall.js';
import { rouge } from './rouge.js';
import { softExactMatch } from './softExactMatch.js';
import { tokenF1 } from './tokenF1.js';

export interface ScoreInput {
  question: string;
  /** Reference answers in the question's language (expected answer first). */
  references: readonly string[];
  /** The explained answer with citations: Soft EM, the judge, ROUGE, BLEU and similarity read it (as MDER-DR and HyP-KGRAG score whole answers). */
  response: string;
  /** The bare answer the final step gave beside `response`: EM and F1 read it (as DaPT, HotpotQA and MuSiQue do). Default: `response`. */
  shortAnswer?: string;
  language: string;
  /** Passages the answer cites, in evidence rank order. */
  citedPassageIds: readonly string[];
  supportingPassageIds?: readonly string[];
  /** Whose EM/F1 edge rules apply (the dataset's official script). Default: `squad`. */
  script?: AnswerScript;
}

export interface ScoreOptions {
  /** Runs LLM-as-judge when given. */
  judge?: { llm: Llm; prompts: PromptLibrary };
  /** Computes embedding similarity when given. */
  embedder?: Embedder;
  /** k values of retrieval recall. Default: [2, 5] (HippoRAG's). */
  recallAt?: readonly number[];
  signal?: AbortSignal;
}

export interface ScoreResult {
  scores: Record<string, number>;
  judge?: { grade: number; reason: string };
  /** Why the judge gave no grade (its reply failed its schema after the model's retry): `scores.judge` is then 0, a counted failure. */
  judgeError?: string;
  /** LLM usage of the judge. */
  usage: LlmUsage[];
}

/** Every metric of one response; the lexical ones always, judge and similarity when their model is given. */
export async function scoreAnswer(input: ScoreInput, options: ScoreOptions = {}): Promise<ScoreResult> {
  const { references, response, language } = input;
  const script = input.script ?? 'squad';
  // Citation markers are not words of the answer: ROUGE, BLEU and similarity read it without them.
  const prose = stripCitations(response);
  const short = input.shortAnswer ?? response;
  const f1 = tokenF1(short, references, { script });
  const f1Lang = tokenF1(short, references, { language, script });
  const r = rouge(prose, references, language);
  const scores: Record<string, number> = {
    'soft-em': softExactMatch(response, references, language),
    em: exactMatch(short, references),
    f1: f1.f1,
    'em-lang': exactMatch(short, references, { language }),
    'f1-lang': f1Lang.f1,
    'rouge1-f': r.rouge1.f1,
    'rouge1-p': r.rouge1.precision,
    'rouge1-r': r.rouge1.recall,
    'rouge2-f': r.rouge2.f1,
    'rouge2-p': r.rouge2.precision,
    'rouge2-r': r.rouge2.recall,
    'rougeL-f': r.rougeL.f1,
    'rougeL-p': r.rougeL.precision,
    'rougeL-r': r.rougeL.recall,
    bleu: bleu(prose, references, language),
  };
  for (const k of options.recallAt ?? [2, 5]) {
    const recall = retrievalRecall(input.citedPassageIds, input.supportingPassageIds, k);
    if (recall !== undefined) scores[recallMetric(k)] = recall;
  }
  if (options.embedder)
    scores.similarity = await embeddingSimilarity(options.embedder, prose, references, options.signal);
  const result: ScoreResult = { scores, usage: [] };
  if (options.judge) {
    try {
      const verdict = await llmJudge(
        options.judge.llm,
        options.judge.prompts,
        { question: input.question, expected: references, response, language },
        options.signal,
      );
      scores.judge = verdict.score;
      result.judge = { grade: verdict.grade, reason: verdict.reason };
      result.usage.push(verdict.usage);
    } catch (error) {
      if ((error as { code?: string }).code !== 'LLM_OUTPUT_INVALID') throw error;
      // The Llm already retried once. Leaving the row out would lift the mean to the answers the
      // judge could read; it scores 0 and the report counts it.
      scores.judge = 0;
      result.judgeError = (error as Error).message;
    }
  }
  return result;
}

/** The scores of an answer that could not be produced: 0 on every answer metric, recall 0 where defined. */
export function failedScores(
  input: Pick<ScoreInput, 'supportingPassageIds'>,
  options: Pick<ScoreOptions, 'recallAt' | 'embedder' | 'judge'>,
): Record<string, number> {
  const scores: Record<string, number> = {};
  for (const id of METRIC_ORDER) if (id !== 'judge' && id !== 'similarity') scores[id] = 0;
  if (options.embedder) scores.similarity = 0;
  if (options.judge) scores.judge = 0;
  if (input.supportingPassageIds && input.supportingPassageIds.length > 0)
    for (const k of options.recallAt ?? [2, 5]) scores[recallMetric(k)] = 0;
  return scores;
}
