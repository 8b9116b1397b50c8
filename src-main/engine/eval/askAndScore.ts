import { isCancellation, toErrorData } from '../base/errors.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import type { Answer, StrategyName } from '../qa/Answer.js';
import type { AskRequest, EvalKb } from './EvalDependencies.js';
import { addUsage, ZERO_COST, type EvalResultRow } from './EvalResultRow.js';
import { answerScriptFor } from './metrics/answerScript.js';
import { failedScores, scoreAnswer } from './metrics/scoreAnswer.js';
import type { TranslatedItem } from './translateItem.js';
import type { EvalDataset, EvalItem } from './types.js';

/** One row of a run: a question asked in one language through one strategy. */
export interface EvalUnit {
  item: EvalItem;
  language: string;
  strategy: StrategyName;
}

/** What asking and scoring a unit needs; the same for every unit of a run. */
export interface AskAndScoreContext<K extends EvalKb> {
  /** Answers one question with one strategy (`EvalDependencies.ask`). */
  ask: (kb: K, request: AskRequest) => Promise<Answer>;
  kb: K;
  dataset: EvalDataset;
  /** The KB's language: a row asked in it is a `match`, any other a `mismatch`. */
  kbLanguage: string;
  /** LLM-as-judge; absent: no judge scores. */
  judge?: { llm: Llm; prompts: PromptLibrary } | undefined;
  /** Embedding similarity; absent: no similarity score. */
  embedder?: Embedder | undefined;
  /** Recall@k cut-offs. Default: `scoreAnswer`'s. */
  recallAt?: number[] | undefined;
  signal?: AbortSignal | undefined;
}

/** A row's fields that say what was asked, before any answer. */
type AskedQuestion = Pick<
  EvalResultRow,
  | 'v'
  | 'dataset'
  | 'itemId'
  | 'strategy'
  | 'language'
  | 'condition'
  | 'supportingPassageIds'
  | 'question'
  | 'originalQuestion'
  | 'translatedBy'
  | 'references'
>;

/**
 * Asks one unit's (translated) question and scores the answer into a `results.jsonl` row. A failed
 * translation or a failed answer becomes a row with `error` and failed scores (the next resume
 * retries it); a cancellation is thrown.
 */
export async function askAndScore<K extends EvalKb>(
  unit: EvalUnit,
  translated: TranslatedItem | Error,
  ctx: AskAndScoreContext<K>,
): Promise<EvalResultRow> {
  const { item, language, strategy } = unit;
  const { kb, dataset, kbLanguage } = ctx;
  const scoreOptions = {
    ...(ctx.judge ? { judge: ctx.judge } : {}),
    ...(ctx.embedder ? { embedder: ctx.embedder } : {}),
    ...(ctx.recallAt ? { recallAt: ctx.recallAt } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
  const base = {
    v: 1 as const,
    dataset: dataset.name,
    itemId: item.id,
    strategy,
    language,
    condition: language === kbLanguage ? ('match' as const) : ('mismatch' as const),
    ...(item.supportingPassageIds ? { supportingPassageIds: item.supportingPassageIds } : {}),
  };
  const failed = (question: AskedQuestion, error: { code: string; message: string }): EvalResultRow => ({
    ...question,
    answer: null,
    citedPassageIds: [],
    trace: [],
    scores: failedScores(item, scoreOptions),
    cost: ZERO_COST,
    evalCost: ZERO_COST,
    error,
    finishedAt: new Date().toISOString(),
  });
  if (translated instanceof Error) {
    return failed(
      { ...base, question: item.question, translatedBy: 'llm', references: item.answers },
      { code: toErrorData(translated).code, message: `translation failed: ${translated.message}` },
    );
  }
  const asked: AskedQuestion = {
    ...base,
    question: translated.question,
    ...(translated.by !== 'original' ? { originalQuestion: item.question } : {}),
    translatedBy: translated.by,
    references: translated.answers,
  };
  let answer: Answer;
  try {
    answer = await ctx.ask(kb, {
      question: translated.question,
      strategy,
      answerLanguage: language,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  } catch (error) {
    if (isCancellation(error)) throw error;
    const data = toErrorData(error);
    return failed(asked, { code: data.code, message: data.message });
  }
  const citedPassageIds = citedPassages(answer, kb);
  const scored = await scoreAnswer(
    {
      question: translated.question,
      references: translated.answers,
      response: answer.text,
      ...(answer.shortAnswer !== undefined ? { shortAnswer: answer.shortAnswer } : {}),
      language,
      script: answerScriptFor(dataset.format),
      citedPassageIds,
      ...(item.supportingPassageIds ? { supportingPassageIds: item.supportingPassageIds } : {}),
    },
    scoreOptions,
  );
  const evalCost = { ...ZERO_COST };
  for (const u of scored.usage) addUsage(evalCost, u);
  return {
    ...asked,
    answer: answer.text,
    ...(answer.shortAnswer !== undefined ? { shortAnswer: answer.shortAnswer } : {}),
    answerLanguage: answer.answerLanguage,
    citedPassageIds,
    trace: answer.trace.map((s) => ({
      step: s.step,
      llmCalls: s.llmCalls,
      promptTokens: s.promptTokens,
      completionTokens: s.completionTokens,
      ms: Math.round(s.ms),
    })),
    scores: scored.scores,
    ...(scored.judge ? { judge: scored.judge } : {}),
    ...(scored.judgeError ? { judgeError: scored.judgeError } : {}),
    cost: {
      llmCalls: answer.usage.llmCalls,
      promptTokens: answer.usage.promptTokens,
      completionTokens: answer.usage.completionTokens,
      cacheHits: answer.usage.cacheHits,
      ms: Math.round(answer.usage.ms),
    },
    evalCost,
    finishedAt: new Date().toISOString(),
  };
}

/** Distinct dataset passages cited by the answer, in evidence rank order. */
function citedPassages(answer: Answer, kb: EvalKb): string[] {
  const out: string[] = [];
  for (const e of answer.evidence)
    for (const c of e.citations) {
      const id = kb.passageIdOf(c);
      if (id !== undefined && !out.includes(id)) out.push(id);
    }
  return out;
}
