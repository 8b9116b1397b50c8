import type { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, LlmUsage, RenderedPrompt } from '../models/Llm.js';

/** LLM work of one stage: calls that ran a model, calls answered from the cache, tokens of the former. */
export interface LlmMeter {
  llmCalls: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose reply stayed invalid (their tokens are unknown, the call counts). */
  invalidCalls: number;
}

export function emptyMeter(): LlmMeter {
  return { llmCalls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, invalidCalls: 0 };
}

/**
 * Counts the usage of every call into the meter that is current when the call returns, so a
 * job reports calls, tokens and cache hits per stage without stage code passing usage around.
 * @internal
 */
export class MeteredLlm implements Llm {
  readonly #inner: Llm;
  meter: LlmMeter = emptyMeter();

  constructor(inner: Llm) {
    this.#inner = inner;
  }

  get identity(): string {
    return this.#inner.identity;
  }
  get parallelism(): number {
    return this.#inner.parallelism;
  }

  async generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    const meter = this.meter;
    const result = await this.#count(meter, this.#inner.generateText(prompt, options));
    record(meter, result.usage);
    return result;
  }

  async generateJson<S extends z.ZodType>(prompt: RenderedPrompt, schema: S, options?: LlmCallOptions): Promise<LlmJsonResult<z.infer<S>>> {
    const meter = this.meter;
    const result = await this.#count(meter, this.#inner.generateJson(prompt, schema, options));
    record(meter, result.usage);
    return result;
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  /** The job does not own the model: disposing the meter leaves it loaded. */
  async dispose(): Promise<void> {}

  async #count<T>(meter: LlmMeter, call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof PolyhopError && error.code === 'LLM_OUTPUT_INVALID') {
        meter.llmCalls++;
        meter.invalidCalls++;
      }
      throw error;
    }
  }
}

function record(meter: LlmMeter, usage: LlmUsage): void {
  if (usage.cached) {
    meter.cacheHits++;
    return;
  }
  meter.llmCalls++;
  meter.promptTokens += usage.promptTokens;
  meter.completionTokens += usage.completionTokens;
}
