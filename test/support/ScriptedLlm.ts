import type { z } from 'zod';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { throwIfAborted } from '../../src-main/engine/base/abort.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { modelChunks } from './modelChunks.js';

/**
 * Test double of the LLM for exact pipeline-logic assertions. It answers by rule, matching on
 * the prompt name and the variables the prompt was filled with (never on prose), so prompt
 * wording can change without touching tests. Lives under test/ only: the app never ships it.
 */
export interface ScriptRule {
  /** Prompt name, e.g. `mder/map`. */
  prompt: string;
  /** Optional extra condition on the prompt's variables. */
  when?: (variables: Readonly<Record<string, string>>) => boolean;
  /** The reply: a string for text calls, a JSON value (validated by the call's schema) for JSON calls. */
  reply: (variables: Readonly<Record<string, string>>, prompt: RenderedPrompt) => unknown;
}

export interface ScriptedLlmOptions {
  /** Token counter; default counts whitespace-separated words (use a real tokenizer in benchmarks). */
  countTokens?: (text: string) => number;
  /** Parallel sequences it claims to have. Default 4. */
  parallelism?: number;
  /** Simulated latency per call in ms. Default 0. */
  latencyMs?: number;
  /** Reply used when no rule matches; default throws so tests notice unscripted calls. */
  fallback?: ScriptRule['reply'];
  identity?: string;
  /** Keep every call (prompt and output) in `calls`. Default true; benchmarks with hundreds of thousands of calls turn it off so the log does not count as the engine's memory. */
  recordCalls?: boolean;
}

export interface ScriptedCall {
  prompt: RenderedPrompt;
  kind: 'text' | 'json';
  output: string;
}

export class ScriptedLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  /** Every call, in order (empty when `recordCalls` is false; {@link callCount} counts regardless). */
  readonly calls: ScriptedCall[] = [];
  #callCount = 0;
  readonly #rules: ScriptRule[];
  readonly #options: ScriptedLlmOptions;

  constructor(rules: ScriptRule[], options: ScriptedLlmOptions = {}) {
    this.#rules = rules;
    this.#options = options;
    this.identity = options.identity ?? 'scripted-llm';
    this.parallelism = options.parallelism ?? 4;
  }

  get callCount(): number {
    return this.#callCount;
  }

  countTokens(text: string): number {
    return this.#options.countTokens ? this.#options.countTokens(text) : text.split(/\s+/).filter(Boolean).length;
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const started = performance.now();
    const reply = await this.#answer(prompt, options);
    const text = typeof reply === 'string' ? reply : JSON.stringify(reply);
    this.#stream(text, options);
    this.#record({ prompt, kind: 'text', output: text });
    return { text, stopReason: 'eos', usage: this.#usage(prompt, text, started) };
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const started = performance.now();
    const reply = await this.#answer(prompt, options);
    const raw = typeof reply === 'string' ? reply : JSON.stringify(reply);
    // Streamed as a model writes it under the grammar: the JSON text, a few tokens at a time.
    this.#stream(raw, options);
    this.#record({ prompt, kind: 'json', output: raw });
    let parsed: unknown;
    // As LlamaCppLlm, an unusable reply still reports the tokens it cost.
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: reply is not JSON`, {
        details: { prompt: prompt.name, raw, usage: this.#usage(prompt, raw, started) },
      });
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: reply fails its schema: ${result.error.message}`, {
        details: { prompt: prompt.name, raw, usage: this.#usage(prompt, raw, started) },
      });
    }
    return { value: result.data as z.infer<S>, usage: this.#usage(prompt, raw, started) };
  }

  async dispose(): Promise<void> {}

  #stream(text: string, options: LlmCallOptions): void {
    if (options.onTextChunk) for (const chunk of modelChunks(text)) options.onTextChunk(chunk);
  }

  /** Calls made with one prompt name (for assertions). */
  #record(call: ScriptedCall): void {
    this.#callCount++;
    if (this.#options.recordCalls !== false) this.calls.push(call);
  }

  callsOf(promptName: string): ScriptedCall[] {
    return this.calls.filter((c) => c.prompt.name === promptName);
  }

  async #answer(prompt: RenderedPrompt, options: LlmCallOptions): Promise<unknown> {
    throwIfAborted(options.signal);
    if (this.#options.latencyMs) await new Promise((r) => setTimeout(r, this.#options.latencyMs));
    throwIfAborted(options.signal);
    const rule = this.#rules.find((r) => r.prompt === prompt.name && (!r.when || r.when(prompt.variables)));
    if (rule) return rule.reply(prompt.variables, prompt);
    if (this.#options.fallback) return this.#options.fallback(prompt.variables, prompt);
    throw new Error(
      `ScriptedLlm: no rule for prompt ${prompt.name} with variables ${JSON.stringify(prompt.variables).slice(0, 500)}`,
    );
  }

  #usage(prompt: RenderedPrompt, output: string, started: number) {
    return {
      promptTokens: this.countTokens(`${prompt.system}\n${prompt.user}`),
      completionTokens: this.countTokens(output),
      durationMs: performance.now() - started,
      cached: false,
    };
  }
}
