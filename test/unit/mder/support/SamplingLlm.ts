import type { z } from 'zod';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../../../src-main/engine/models/Llm.js';
import { LLM_CALL_DEFAULTS } from '../../../../src-main/engine/models/Llm.js';
import { zodJsonSchema } from '../../../../src-main/engine/models/grammarSchema.js';
import { generateStructured, type Sampling } from '../../../../src-main/engine/models/structuredReply.js';

/** How one generation was sampled: greedy (temperature 0) repeats itself; a seed picks another sample. */
export interface SampledCall {
  prompt: RenderedPrompt;
  temperature: number;
  seed: number | undefined;
  maxTokens: number;
  /** The text the model wrote (cut at `maxTokens` words when longer). */
  output: string;
}

export interface SamplingRule {
  prompt: string;
  /** The reply as the model would write it whole; `sampling` says which sample this is. */
  reply: (variables: Readonly<Record<string, string>>, sampling: Sampling) => unknown;
}

/**
 * A model double that behaves as a local model does where sampling matters: its reply depends on
 * the prompt and on the sampling only (the same greedy call always gives the same reply, so a
 * failure repeats until the sampling changes), its output stops at `maxTokens` (words stand for
 * tokens) in the middle of the JSON, and structured calls go through the same parse, validate and
 * retry-with-other-sampling path as LlamaCppLlm (`generateStructured`).
 */
export class SamplingLlm implements Llm {
  readonly identity = 'sampling-llm';
  readonly parallelism = 1;
  readonly calls: SampledCall[] = [];
  readonly #rules: SamplingRule[];

  constructor(rules: SamplingRule[]) {
    this.#rules = rules;
  }

  callsOf(name: string): SampledCall[] {
    return this.calls.filter((c) => c.prompt.name === name);
  }

  countTokens(text: string): number {
    return text.split(/\s+/).filter(Boolean).length;
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    return this.#generate(prompt, options, {
      temperature: options.temperature ?? 0,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    });
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return generateStructured(prompt, schema, zodJsonSchema(schema).json, options, (sampling) =>
      this.#generate(prompt, options, sampling),
    );
  }

  async dispose(): Promise<void> {}

  async #generate(prompt: RenderedPrompt, options: LlmCallOptions, sampling: Sampling): Promise<LlmTextResult> {
    const rule = this.#rules.find((r) => r.prompt === prompt.name);
    if (!rule) throw new Error(`SamplingLlm: no rule for ${prompt.name}`);
    const reply = rule.reply(prompt.variables, sampling);
    const whole = typeof reply === 'string' ? reply : JSON.stringify(reply);
    const maxTokens = options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens;
    // Words stand for tokens: cut after the maxTokens-th word, as generation stops mid-string.
    const words = [...whole.matchAll(/\S+\s*/g)];
    const cut = words.length > maxTokens;
    const text = cut
      ? words
          .slice(0, maxTokens)
          .map((m) => m[0])
          .join('')
          .trimEnd()
      : whole;
    this.calls.push({ prompt, temperature: sampling.temperature, seed: sampling.seed, maxTokens, output: text });
    const usage = {
      promptTokens: this.countTokens(`${prompt.system}\n${prompt.user}`),
      completionTokens: this.countTokens(text),
      durationMs: 0,
      cached: false,
    };
    return { text, stopReason: cut ? 'maxTokens' : 'eos', usage };
  }
}
