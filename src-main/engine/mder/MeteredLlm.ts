import type { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, LlmUsage, RenderedPrompt } from '../models/Llm.js';
import { UsageMeter } from '../models/UsageMeter.js';

/**
 * Records every call into the meter that is current when the call started, so a job reports
 * calls, tokens and cache hits per stage without stage code passing usage around.
 * @internal
 */
export class MeteredLlm implements Llm {
  readonly #inner: Llm;
  meter = new UsageMeter();

  constructor(inner: Llm) {
    this.#inner = inner;
  }

  get identity(): string {
    return this.#inner.identity;
  }
  get parallelism(): number {
    return this.#inner.parallelism;
  }
  get contextTokens(): number | undefined {
    return this.#inner.contextTokens;
  }

  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    return this.#metered(this.#inner.generateText(prompt, options));
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#metered(this.#inner.generateJson(prompt, schema, options));
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  /** The job does not own the model: disposing the wrapper leaves it loaded. */
  async dispose(): Promise<void> {}

  async #metered<T extends { usage: LlmTextResult['usage'] }>(call: Promise<T>): Promise<T> {
    const meter = this.meter;
    try {
      const result = await call;
      meter.record(result.usage);
      return result;
    } catch (error) {
      // A reply that failed its schema still cost its calls: LLM_OUTPUT_INVALID carries that usage.
      const usage = error instanceof PolyhopError ? (error.details?.usage as LlmUsage | undefined) : undefined;
      if (usage) meter.record(usage);
      throw error;
    }
  }
}
