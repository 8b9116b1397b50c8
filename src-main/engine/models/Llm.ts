import type { z } from 'zod';

/** A prompt file filled with its variables; see {@link PromptLibrary}. */
export interface RenderedPrompt {
  /** Path of the prompt under `prompts/` without extension, e.g. `mder/map`. */
  readonly name: string;
  /** The `version:` line of the prompt file; part of the call-cache key. */
  readonly version: string;
  readonly system: string;
  readonly user: string;
  /** The variables the prompt was filled with (test doubles match on these, never on prose). */
  readonly variables: Readonly<Record<string, string>>;
}

/** Defaults every Llm applies to {@link LlmCallOptions}; the call cache normalises keys with them. */
export const LLM_CALL_DEFAULTS = { maxTokens: 1024, temperature: 0, reasoningTokens: 1024 } as const;

export interface LlmCallOptions {
  /** Aborts generation; the call rejects with a CancelledError. */
  signal?: AbortSignal;
  /** Completion token budget of the answer (a thinking model's reasoning has its own, below). Default: 1024. */
  maxTokens?: number;
  /**
   * Tokens a thinking model (Qwen3 `<think>`, gpt-oss analysis channel) may reason before it
   * answers, on top of `maxTokens`; when spent, the model is made to answer. 0 turns reasoning off.
   * Ignored by models that do not reason. Default: 1024.
   */
  reasoningTokens?: number;
  /** Sampling temperature. Default: 0 (greedy), so re-runs and the call cache agree. */
  temperature?: number;
  /**
   * Sampling seed (with a temperature above 0), part of the call-cache key: a unit asked again
   * after a failed run passes another seed, so it gets another answer, not the same failure.
   * Default: none (the backend's).
   */
  seed?: number;
  /**
   * Receives generated text as it streams: a text call's answer; for a JSON call, the raw JSON as
   * the grammar lets the model write it (decode a field with `JsonStringFieldStream`). Never a
   * thinking model's reasoning.
   */
  onTextChunk?: (text: string) => void;
  /**
   * Called when generation starts over (a JSON call retried after output that failed its
   * schema): what `onTextChunk` received so far is void, and the new attempt's text follows.
   */
  onTextRestart?: () => void;
}

export interface LlmUsage {
  promptTokens: number;
  /** Every generated token, reasoning included: what the call cost. */
  completionTokens: number;
  /** Of those, the reasoning of a thinking model (when the model reports it). */
  reasoningTokens?: number;
  durationMs: number;
  /** True when the result came from the call cache and no model ran. */
  cached: boolean;
}

export type LlmStopReason = 'eos' | 'maxTokens' | 'abort';

export interface LlmTextResult {
  text: string;
  usage: LlmUsage;
  stopReason: LlmStopReason;
}

export interface LlmJsonResult<T> {
  value: T;
  usage: LlmUsage;
}

/**
 * A text generator. Implementations: `LlamaCppLlm` (node-llama-cpp), `CachingLlm` (call cache
 * + accounting around another Llm); the scripted test double lives under `test/` only.
 */
/**
 * Chat-template tokens around a prompt that `countTokens` of its text does not see (role markers):
 * what a caller adds when it checks a call fits `contextTokens`.
 */
export const CHAT_TEMPLATE_TOKENS = 16;

export interface Llm {
  /** Stable identity of the model and every setting that changes its output (cache key part). */
  readonly identity: string;
  /** How many calls can run in parallel (the context's sequences). */
  readonly parallelism: number;
  /** Tokens one call's prompt and completion share (the context of one sequence), when known. */
  readonly contextTokens?: number;
  /** Whether the model reasons before it answers (a thinking model; see `LlmCallOptions.reasoningTokens`). */
  readonly reasons?: boolean;
  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult>;
  /**
   * Generates under a grammar derived from `schema` (JSON Schema via zod), then validates with it.
   * Rejects with PolyhopError `LLM_OUTPUT_INVALID` (details: prompt, raw) when output still fails.
   */
  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>>;
  countTokens(text: string): number;
  dispose(): Promise<void>;
}
