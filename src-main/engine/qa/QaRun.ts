import { z } from 'zod';
import type { Answer, TraceStep } from './Answer.js';
import { throwIfAborted } from '../base/abort.js';
import { fence } from '../base/fence.js';
import { BugIndicatingError, PolyhopError } from '../base/errors.js';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmUsage } from '../models/Llm.js';
import { AnswerStream } from './AnswerStream.js';
import { Retriever } from './retrieval/Retriever.js';
import { evidenceBudget, type QaSettings } from './settings.js';
import type { AskOptions, QaContext } from './types.js';
import { isEnglish } from './language.js';

type Usage = Answer['usage'];

/**
 * The state of one question: context, languages, the usage meter and the trace. Every LLM call
 * goes through a {@link StepScope}, so calls, tokens and time are attributed to the step that made
 * them even when a step runs calls in parallel.
 */
export class QaRun {
  readonly ctx: QaContext;
  readonly settings: QaSettings;
  readonly question: string;
  /** Set once by `ask`'s language step (a model may break a tie the detector left). */
  questionLanguage: string;
  /**
   * The languages the question may be in that the KB has a corpus in, the detector's likeliest
   * first, {@link questionLanguage} among them; more than one only when the detector could not rule
   * them out (set by `ask`'s language step).
   */
  questionLanguages: readonly string[];
  /**
   * The detector's likeliest language and the tie-breaker's different pick, which the final
   * answer settles (see `disputedLanguages`); null when they agree (set by `ask`'s language step).
   */
  languageDispute: readonly [string, string] | null = null;
  readonly #answerLanguage: string | undefined;
  readonly signal: AbortSignal | undefined;
  /** The final answer as it streams to the asker. */
  readonly answerStream: AnswerStream;
  readonly retriever: Retriever;
  readonly trace: TraceStep[] = [];
  readonly #usage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, cacheHits: 0 };
  readonly #started = performance.now();
  #english: Promise<string> | undefined;
  /** Share of the evidence budget in use: 1, halved once when the server refuses the prompt as too long. */
  #evidenceShare = 1;

  constructor(ctx: QaContext, settings: QaSettings, question: string, questionLanguage: string, options: AskOptions) {
    this.ctx = ctx;
    this.settings = settings;
    this.question = question;
    this.questionLanguage = questionLanguage;
    this.questionLanguages = [questionLanguage];
    this.#answerLanguage = options.answerLanguage;
    this.signal = options.signal;
    this.answerStream = new AnswerStream(options);
    this.retriever = new Retriever(ctx.kb, ctx.embedder, settings.shared.rrfK, options.signal);
  }

  /** The language the answer is written in: as asked, else the question's. */
  get answerLanguage(): string {
    return this.#answerLanguage ?? this.questionLanguage;
  }

  /** The languages the final answer chooses between: the {@link languageDispute}, unless the answer language is asked. */
  get openAnswerLanguages(): readonly [string, string] | null {
    return this.#answerLanguage === undefined ? this.languageDispute : null;
  }

  /** The language the final answer was written in, among the {@link openAnswerLanguages}: the question's, from now on. */
  settleLanguage(language: string): void {
    if (!this.openAnswerLanguages?.includes(language))
      throw new BugIndicatingError(`qa: ${language} is not one of the languages in dispute`);
    this.questionLanguage = language;
    this.languageDispute = null;
  }

  get llm(): Llm {
    if (!this.ctx.llm) throw new BugIndicatingError('qa: a strategy asked for the LLM in retrieval-only mode');
    return this.ctx.llm;
  }

  /** Tokens of evidence one prompt may carry (see {@link evidenceBudget}). */
  get evidenceTokens(): number {
    return Math.floor(
      this.#evidenceShare * evidenceBudget(this.settings, this.llm.contextTokens, this.llm.reasons === true),
    );
  }

  /** Halves the evidence budget (after a context refusal: see ask.ts); false when it was halved already. */
  shrinkEvidence(): boolean {
    if (this.#evidenceShare < 1) return false;
    this.#evidenceShare = 0.5;
    return true;
  }

  /**
   * Runs `fn` as one trace step. `fn` fills `scope.detail` with what the UI should show; a failure
   * is recorded in the step (with the error message) before it propagates.
   */
  async step<T>(name: string, fn: (scope: StepScope) => Promise<T>): Promise<T> {
    throwIfAborted(this.signal);
    const scope = new StepScope(this);
    const started = performance.now();
    const record = (): void => {
      this.trace.push({
        step: name,
        detail: scope.detail,
        llmCalls: scope.llmCalls,
        promptTokens: scope.promptTokens,
        completionTokens: scope.completionTokens,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    };
    try {
      const value = await fn(scope);
      record();
      return value;
    } catch (error) {
      scope.detail.error = error instanceof Error ? error.message : String(error);
      record();
      throw error;
    }
  }

  /**
   * The question in English: itself when English, else translated once (step `translate`). A
   * question taken as English that may be in another language ({@link questionLanguages}) is
   * translated too, for every strategy alike: one tie-break must not send an Italian question
   * untranslated into English prompts and corpora, and a translation of an English question is itself.
   */
  englishQuestion(): Promise<string> {
    this.#english ??= this.questionLanguages.every(isEnglish)
      ? Promise.resolve(this.question)
      : this.step('translate', async (s) => {
          // An unusable translation leaves the question as asked (multilingual embedders still retrieve).
          const value = await s.tryJson('qa/translate', { question: fence(this.question) }, TranslationSchema);
          const english = value?.english.trim() || this.question;
          s.detail.english = english;
          return english;
        });
    return this.#english;
  }

  /** A step run before this question (a follow-up's rewrite): it heads the trace and its cost counts here. */
  adopt(step: TraceStep, usage: Usage): void {
    this.trace.push(step);
    this.#usage.llmCalls += usage.llmCalls;
    this.#usage.promptTokens += usage.promptTokens;
    this.#usage.completionTokens += usage.completionTokens;
    this.#usage.cacheHits += usage.cacheHits;
  }

  /** @internal */
  count(usage: LlmUsage): void {
    this.#usage.llmCalls++;
    this.#usage.promptTokens += usage.promptTokens;
    this.#usage.completionTokens += usage.completionTokens;
    if (usage.cached) this.#usage.cacheHits++;
  }

  usage(): Usage {
    return { ...this.#usage, ms: Math.round(performance.now() - this.#started) };
  }
}

const TranslationSchema = z.object({ english: z.string() });

/** The LLM door of one trace step. */
export class StepScope {
  readonly detail: Record<string, unknown> = {};
  llmCalls = 0;
  promptTokens = 0;
  completionTokens = 0;
  readonly #run: QaRun;
  readonly #calls: { prompt: string; promptTokens: number; completionTokens: number; ms: number; cached: boolean }[] =
    [];

  constructor(run: QaRun) {
    this.#run = run;
  }

  /** One JSON call; `stream` receives its raw text as it is generated (the final answer's, see {@link AnswerStream}). */
  async json<S extends z.ZodType>(
    promptName: string,
    variables: Record<string, string | number>,
    schema: S,
    maxTokens?: number,
    stream?: Pick<LlmCallOptions, 'onTextChunk' | 'onTextRestart'>,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const prompt = this.#run.ctx.prompts.render(promptName, variables);
    const { stepMaxTokens, reasoningMaxTokens } = this.#run.settings.shared;
    let result: LlmJsonResult<z.infer<S>>;
    try {
      result = await this.#run.llm.generateJson(prompt, schema, {
        signal: this.#run.signal,
        maxTokens: maxTokens ?? stepMaxTokens,
        reasoningTokens: reasoningMaxTokens,
        ...stream,
      });
    } catch (error) {
      // A reply that failed its schema still ran the model: its tokens belong in the trace.
      const usage = isInvalidOutput(error)
        ? ((error as PolyhopError).details.usage as LlmUsage | undefined)
        : undefined;
      if (usage) this.#count(promptName, usage);
      throw error;
    }
    this.#count(promptName, result.usage);
    return result;
  }

  /**
   * Like {@link json}, but a reply that fails its schema gives `null` (recorded under
   * `detail.invalid`) so the strategy can degrade instead of failing the question. Other errors,
   * cancellation included, propagate.
   */
  async tryJson<S extends z.ZodType>(
    promptName: string,
    variables: Record<string, string | number>,
    schema: S,
    maxTokens?: number,
  ): Promise<z.infer<S> | null> {
    try {
      return (await this.json(promptName, variables, schema, maxTokens)).value;
    } catch (error) {
      if (!isInvalidOutput(error)) throw error;
      const invalid = (this.detail.invalid ??= []) as { prompt: string; message: string }[];
      invalid.push({ prompt: promptName, message: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }

  #count(prompt: string, usage: LlmUsage): void {
    this.llmCalls++;
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    this.#calls.push({
      prompt,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      ms: Math.round(usage.durationMs),
      cached: usage.cached,
    });
    this.detail.llm = this.#calls;
    this.#run.count(usage);
  }
}

/** Why a call gave no answer text, in words for the trace and the answer. */
export function emptyReason(stopReason: string, maxTokens: number, reasoningTokens: number): string {
  const reasoned = reasoningTokens > 0 ? `it reasoned for ${reasoningTokens} tokens, then ` : '';
  return stopReason === 'maxTokens'
    ? `the model gave no answer: ${reasoned}its ${maxTokens}-token answer budget ran out before any text ` +
        '(raise shared.answerMaxTokens or shared.reasoningMaxTokens)'
    : `the model gave no answer: ${reasoned}it stopped without writing any text`;
}

/** A structured reply that failed its schema: strategies fall back instead of failing the question. */
export function isInvalidOutput(error: unknown): boolean {
  return error instanceof PolyhopError && error.code === 'LLM_OUTPUT_INVALID';
}
