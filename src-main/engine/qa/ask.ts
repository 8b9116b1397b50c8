import type { Answer, TraceStep } from './Answer.js';
import { throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import { citeEvidence } from './citations.js';
import { z } from 'zod';
import { fence } from '../base/fence.js';
import {
  disputedLanguages,
  guessLanguage,
  languageName,
  plausibleCorpusLanguages,
  type LanguageGuess,
} from './language.js';
import { QaRun, type StepScope } from './QaRun.js';
import { retrievalOnlyAnswer } from './retrievalOnly.js';
import { QA_DEFAULTS } from './settings.js';
import { STRATEGY_REGISTRY } from './strategies.js';
import type { AskOptions, QaContext, Strategy, StrategyResult } from './types.js';

/**
 * Answers one question with the chosen strategy: detects the question's language, runs the
 * strategy (or, with no generation model or when asked, ranks evidence only), and returns the
 * contract's `Answer` with cited evidence, the trace of every step and the LLM usage.
 * Streams the final answer through `options.onTextChunk`; rejects with CancelledError on abort.
 */
export async function ask(ctx: QaContext, question: string, options: AskOptions): Promise<Answer> {
  throwIfAborted(options.signal);
  const trimmed = question.trim();
  if (!trimmed) throw new PolyhopError('INVALID_REQUEST', 'qa/ask: the question is empty');
  const strategy = STRATEGY_REGISTRY[options.strategy];
  if (!strategy) throw new PolyhopError('INVALID_REQUEST', `qa/ask: unknown strategy "${options.strategy}"`);
  const settings = ctx.settings ?? QA_DEFAULTS;
  const kbLanguages = ctx.kb.documents.documentLanguages();
  const guess = guessLanguage(trimmed, {
    kbLanguages,
    ...(options.uiLanguage ? { uiLanguage: options.uiLanguage } : {}),
  });
  const run = new QaRun(ctx, settings, trimmed, guess.language, options);
  if (options.rewrite) run.adopt(options.rewrite.step, options.rewrite.usage);
  const retrievalOnly = options.retrievalOnly === true || ctx.llm === null;
  await run.step('language', async (s) => {
    s.detail.detected = {
      language: guess.language,
      confident: guess.confident,
      why: guess.why,
      candidates: guess.candidates,
      plausible: guess.plausible,
    };
    if (!guess.confident && !retrievalOnly && guess.candidates.length > 1)
      run.questionLanguage = await tieBreak(s, trimmed, guess);
    // The tie-break names the question's language; it does not rule out the detector's other close ones.
    run.questionLanguages = plausibleCorpusLanguages(run.questionLanguage, guess, kbLanguages);
    run.languageDispute = disputedLanguages(run.questionLanguage, guess);
    s.detail.question = run.questionLanguage;
    if (run.questionLanguages.length > 1) s.detail.plausible = run.questionLanguages;
    if (run.openAnswerLanguages) s.detail.answerSettles = run.openAnswerLanguages;
    s.detail.answer = run.answerLanguage;
    s.detail.mode = retrievalOnly
      ? ctx.llm === null
        ? 'retrieval only: no generation model'
        : 'retrieval only: requested'
      : strategy.name;
  });

  const result = retrievalOnly ? await retrievalOnlyAnswer(run) : await answerWithinContext(run, strategy);
  const evidence = citeEvidence(ctx.kb, run.retriever, result.evidence, settings.shared.maxCitationsPerEvidence);
  // An empty answer always says why (the step that produced it recorded the reason).
  const text = retrievalOnly || result.text.trim() ? result.text : `(${emptyReason(run.trace)}.)`;
  // What streamed ends as what the answer says: the reason for an empty one, a retrieval-only list.
  run.answerStream.settle(text);
  return {
    question: trimmed,
    questionLanguage: run.questionLanguage,
    answerLanguage: run.answerLanguage,
    strategy: strategy.name,
    text,
    ...(result.shortAnswer !== undefined ? { shortAnswer: result.shortAnswer } : {}),
    retrievalOnly,
    evidence,
    trace: run.trace,
    usage: run.usage(),
  };
}

/**
 * The strategy's answer; when the model refuses a prompt as longer than its context (BAD_INPUT: a
 * server's overflow refusal, LM Studio's among them, or a prompt a server was seen to cut), asked
 * once more with half the evidence budget, a `context-retry` step saying so. Servers that report
 * no context size (Ollama, LM Studio) are where the budget can be wrong.
 */
async function answerWithinContext(run: QaRun, strategy: Strategy): Promise<StrategyResult> {
  try {
    return await strategy.answer(run);
  } catch (error) {
    if (!(error instanceof PolyhopError) || error.code !== 'BAD_INPUT' || run.signal?.aborted) throw error;
    const before = run.evidenceTokens;
    if (!run.shrinkEvidence()) throw error;
    await run.step('context-retry', async (s) => {
      s.detail.refused = error.message;
      s.detail.evidenceTokens = { before, after: run.evidenceTokens };
      s.detail.note =
        'the model refused the prompt as longer than its context: asked again with half the evidence budget';
    });
    return strategy.answer(run);
  }
}

/** The reason the latest step that gave no text recorded (`detail.empty`, see StepScope.text). */
function emptyReason(trace: readonly TraceStep[]): string {
  for (let i = trace.length - 1; i >= 0; i--) {
    const empty = (trace[i]!.detail as { empty?: unknown } | null)?.empty;
    if (typeof empty === 'string') return empty;
  }
  return 'the model gave no answer';
}

/**
 * The model picks among the detector's candidates for a question too short or too full of names
 * to tell; an unusable reply keeps the detector's guess.
 */
async function tieBreak(s: StepScope, question: string, guess: LanguageGuess): Promise<string> {
  const codes = guess.candidates as [string, ...string[]];
  const reply = await s.tryJson(
    'qa/language',
    { question: fence(question), candidates: codes.map((c) => `${c} (${languageName(c)})`).join(', ') },
    z.object({ language: z.enum(codes) }),
  );
  s.detail.model = reply?.language ?? null;
  return reply?.language ?? guess.language;
}
