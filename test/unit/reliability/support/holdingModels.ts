/**
 * The kill tests' children (indexChild.ts, watchChild.ts) hold one model call open until their
 * parent kills them, so that a kill meant for a stage lands inside it whatever the machine's load.
 */
import type { z } from 'zod';
import type { EmbedOptions, Embedder } from '../../../../src-main/engine/models/Embedder.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../../../src-main/engine/models/Llm.js';

/**
 * Which call to hold: the first named `call` (a prompt name, or `embed`) made while the job is in
 * `stage` and `ready()` is true. It is held once per process.
 */
export class CallHold {
  /** The stage the job is in now; the child keeps it from the job's progress events. */
  stage = '';
  #held = false;
  readonly #stage: string | undefined;
  readonly #call: string | undefined;
  readonly #ready: () => boolean;

  /** `at` is `<stage>:<call>` (anything after a further `:` is the child's own); none holds nothing. */
  constructor(at: string | undefined, ready: () => boolean = () => true) {
    [this.#stage, this.#call] = at?.split(':') ?? [];
    this.#ready = ready;
  }

  /** For the held call: a promise that never settles, after `held <stage>` on stdout; otherwise null. */
  holdIf(name: string): Promise<never> | null {
    if (this.#held || name !== this.#call || this.stage !== this.#stage || !this.#ready()) return null;
    this.#held = true;
    process.stdout.write(`held ${this.stage}\n`);
    return new Promise<never>(() => {});
  }
}

/** An embedder whose calls go through `hold` as `embed`. */
export class HoldingEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly #inner: Embedder;
  readonly #hold: CallHold;

  constructor(inner: Embedder, hold: CallHold) {
    this.#inner = inner;
    this.#hold = hold;
    this.identity = inner.identity;
    this.dimension = inner.dimension;
  }

  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    return this.#hold.holdIf('embed') ?? this.#inner.embed(texts, options);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

/** Told of each call before it is held or passed on (`schema` for a JSON call). */
export type OnLlmCall = (prompt: RenderedPrompt, options: LlmCallOptions | undefined, schema?: z.ZodType) => void;

/** A model whose calls go through `hold` under their prompt's name. */
export class HoldingLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly #inner: Llm;
  readonly #hold: CallHold;
  readonly #onCall: OnLlmCall;

  constructor(inner: Llm, hold: CallHold, onCall: OnLlmCall = () => {}) {
    this.#inner = inner;
    this.#hold = hold;
    this.#onCall = onCall;
    this.identity = inner.identity;
    this.parallelism = inner.parallelism;
  }

  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    this.#onCall(prompt, options);
    return this.#hold.holdIf(prompt.name) ?? this.#inner.generateText(prompt, options);
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    this.#onCall(prompt, options, schema);
    return this.#hold.holdIf(prompt.name) ?? this.#inner.generateJson(prompt, schema, options);
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}
