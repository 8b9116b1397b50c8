import type { z } from 'zod';
import { asCancelled } from '../../src-main/engine/base/abort.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { seededRandom } from './seededRandom.js';

export interface HardFailureLlmOptions {
  /** Seeds how long each call stays in flight (event-loop turns). */
  seed: number;
  /** The call (0-based, in start order) that fails hard; none when undefined. */
  failAt?: number;
  /** Most event-loop turns a call stays in flight. Default: 30. */
  maxTurns?: number;
}

/**
 * Wraps a model so that calls stay in flight for a seeded number of event-loop turns, as calls on
 * a backend's parallel sequences do, and one of them fails hard: it throws a plain Error, as
 * node-llama-cpp does when the backend crashed or ran out of memory. A call in flight stops with
 * CancelledError when its signal aborts (at its next turn), like a real generation; one whose
 * signal never aborts runs to its end. `inFlight` counts the calls that have not settled.
 */
export class HardFailureLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly contextTokens?: number;
  inFlight = 0;
  started = 0;
  /** Set once the hard failure was thrown. */
  failed = false;
  readonly #inner: Llm;
  readonly #options: HardFailureLlmOptions;
  readonly #random: () => number;
  readonly #idle: (() => void)[] = [];
  #gate: { promise: Promise<void>; open: () => void } | null = null;

  constructor(inner: Llm, options: HardFailureLlmOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#random = seededRandom(options.seed);
    this.identity = inner.identity;
    this.parallelism = inner.parallelism;
    if (inner.contextTokens !== undefined) this.contextTokens = inner.contextTokens;
  }

  generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    return this.#call(options, () => this.#inner.generateText(prompt, options));
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#call(options, () => this.#inner.generateJson(prompt, schema, options));
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  async dispose(): Promise<void> {
    await this.#inner.dispose();
  }

  /** Holds every call in flight where it is (a slow backend) until the returned function is called. */
  hold(): () => void {
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => (open = resolve));
    const gate = { promise, open };
    this.#gate = gate;
    return () => {
      if (this.#gate === gate) this.#gate = null;
      gate.open();
    };
  }

  /** Resolves when no call is in flight. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  async #call<T>(options: LlmCallOptions, answer: () => Promise<T>): Promise<T> {
    const index = this.started++;
    const turns = Math.floor(this.#random() * ((this.#options.maxTurns ?? 30) + 1));
    this.inFlight++;
    try {
      for (let i = 0; i < turns; i++) {
        if (options.signal?.aborted) throw asCancelled(options.signal.reason);
        await new Promise((resolve) => setImmediate(resolve));
        if (this.#gate) await this.#gate.promise;
      }
      if (this.#gate) await this.#gate.promise;
      if (options.signal?.aborted) throw asCancelled(options.signal.reason);
      if (index === this.#options.failAt) {
        this.failed = true;
        throw new Error('llama backend crashed: out of memory (test double)');
      }
      return await answer();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }
}
