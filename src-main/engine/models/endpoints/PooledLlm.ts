import type { z } from 'zod';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, RenderedPrompt } from '../Llm.js';
import type { EndpointConfig, EndpointStatus } from './EndpointConfig.js';
import { EndpointPool, type EndpointPoolOptions } from './EndpointPool.js';
import { OpenAiLlm, type OpenAiLlmOptions } from './OpenAiLlm.js';

export type PooledLlmOptions = Omit<EndpointPoolOptions<OpenAiLlm>, 'connect'> & Omit<OpenAiLlmOptions, 'signal'>;

/** The generation model served by a pool of endpoints (see {@link EndpointPool}); one Llm to the rest of Polyhop. */
export class PooledLlm implements Llm {
  readonly identity: string;
  readonly contextTokens: number | undefined;
  readonly #pool: EndpointPool<OpenAiLlm>;

  private constructor(pool: EndpointPool<OpenAiLlm>) {
    this.#pool = pool;
    this.identity = pool.identity;
    // The smallest context any of them reported, so a prompt that fits fits everywhere.
    const contexts = pool.models.map((m) => m.contextTokens).filter((n): n is number => n !== undefined);
    this.contextTokens = contexts.length > 0 ? Math.min(...contexts) : undefined;
  }

  static async create(configs: readonly EndpointConfig[], options: PooledLlmOptions = {}, signal?: AbortSignal): Promise<PooledLlm> {
    const { stallMs, ...poolOptions } = options;
    const pool = await EndpointPool.create<OpenAiLlm>(
      configs,
      { ...poolOptions, connect: (config, s) => OpenAiLlm.create(config, { ...(stallMs !== undefined ? { stallMs } : {}), ...(s ? { signal: s } : {}) }) },
      signal,
    );
    return new PooledLlm(pool);
  }

  get parallelism(): number {
    return this.#pool.parallelism;
  }

  status(): EndpointStatus[] {
    return this.#pool.status();
  }

  countTokens(text: string): number {
    return this.#pool.sample.countTokens(text);
  }

  // A call that runs again on another endpoint streams from the start: listeners are told to drop
  // what the failed attempt sent (`onTextRestart`), as for a retried JSON reply.
  generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    return this.#pool.run((llm, signal) => llm.generateText(prompt, { ...options, ...(signal ? { signal } : {}) }), options.signal, options.onTextRestart);
  }

  generateJson<S extends z.ZodType>(prompt: RenderedPrompt, schema: S, options: LlmCallOptions = {}): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#pool.run((llm, signal) => llm.generateJson(prompt, schema, { ...options, ...(signal ? { signal } : {}) }), options.signal, options.onTextRestart);
  }

  dispose(): Promise<void> {
    return this.#pool.dispose();
  }
}
