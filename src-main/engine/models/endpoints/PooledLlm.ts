import type { z } from 'zod';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, RenderedPrompt } from '../Llm.js';
import type { EndpointConfig, EndpointStatus } from './EndpointConfig.js';
import { EndpointPool, type EndpointPoolOptions } from './EndpointPool.js';
import { OpenAiLlm, type OpenAiLlmOptions } from './OpenAiLlm.js';
import { serverContextPlan } from '../contextPlan.js';

export type PooledLlmOptions = Omit<EndpointPoolOptions<OpenAiLlm>, 'connect'> &
  Omit<OpenAiLlmOptions, 'signal'> & {
    /** Context tokens one call needs for the strategies' evidence (qa/contextNeed.ts), for each endpoint's `context` status line. Default: none. */
    contextNeed?: (reasons: boolean) => number;
  };

/** The generation model served by a pool of endpoints (see {@link EndpointPool}); one Llm to the rest of Polyhop. */
export class PooledLlm implements Llm {
  readonly identity: string;
  readonly #pool: EndpointPool<OpenAiLlm>;
  readonly #contextNeed: ((reasons: boolean) => number) | undefined;

  private constructor(pool: EndpointPool<OpenAiLlm>, contextNeed: ((reasons: boolean) => number) | undefined) {
    this.#pool = pool;
    this.#contextNeed = contextNeed;
    this.identity = pool.identity;
  }

  /**
   * The smallest context any of them reported, so a prompt that fits fits everywhere. Read it when
   * needed: a server that reports none may be found to cut prompts (OpenAiLlm learns its context then).
   */
  get contextTokens(): number | undefined {
    const contexts = this.#pool.models.map((m) => m.contextTokens).filter((n): n is number => n !== undefined);
    return contexts.length > 0 ? Math.min(...contexts) : undefined;
  }

  static async create(
    configs: readonly EndpointConfig[],
    options: PooledLlmOptions = {},
    signal?: AbortSignal,
  ): Promise<PooledLlm> {
    const { stallMs, firstByteMs, contextNeed, ...poolOptions } = options;
    const timing = {
      ...(stallMs !== undefined ? { stallMs } : {}),
      ...(firstByteMs !== undefined ? { firstByteMs } : {}),
    };
    const pool = await EndpointPool.create<OpenAiLlm>(
      configs,
      { ...poolOptions, connect: (config, s) => OpenAiLlm.create(config, { ...timing, ...(s ? { signal: s } : {}) }) },
      signal,
    );
    return new PooledLlm(pool, contextNeed);
  }

  /** Whether the model reasons: any endpoint has seen it reason (they all serve the same model). */
  get reasons(): boolean {
    return this.#pool.models.some((m) => m.reasons);
  }

  get parallelism(): number {
    return this.#pool.parallelism;
  }

  status(): EndpointStatus[] {
    const need = this.#contextNeed?.(this.reasons);
    if (need === undefined) return this.#pool.status();
    const models = new Map(this.#pool.models.map((m) => [m.config.id, m]));
    return this.#pool.status().map((s) => {
      const model = models.get(s.id);
      return model
        ? {
            ...s,
            context: serverContextPlan({ contextTokens: model.contextTokens, needTokens: need, slots: s.concurrency }),
          }
        : s;
    });
  }

  countTokens(text: string): number {
    return this.#pool.sample.countTokens(text);
  }

  // A call that runs again on another endpoint streams from the start: listeners are told to drop
  // what the failed attempt sent (`onTextRestart`), as for a retried JSON reply.
  generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    return this.#pool.run(
      (llm, signal) => llm.generateText(prompt, { ...options, ...(signal ? { signal } : {}) }),
      options.signal,
      options.onTextRestart,
    );
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#pool.run(
      (llm, signal) => llm.generateJson(prompt, schema, { ...options, ...(signal ? { signal } : {}) }),
      options.signal,
      options.onTextRestart,
    );
  }

  dispose(): Promise<void> {
    return this.#pool.dispose();
  }
}
