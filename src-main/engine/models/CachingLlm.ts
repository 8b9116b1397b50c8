import type { z } from 'zod';
import { hashParts } from '../base/hash.js';
import type { CallCacheStore } from './CallCache.js';
import {
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmStopReason,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from './Llm.js';
import { zodJsonSchema } from './grammarSchema.js';
import { firstSampling } from './structuredReply.js';
import { UsageMeter } from './UsageMeter.js';
import { reasoningTokensFor, type ReasoningPolicy } from './reasoningPolicy.js';

export interface CachingLlmOptions {
  /** Where finished calls are kept (the KB's SQLite, or MemoryCallCacheStore). */
  store: CallCacheStore;
  /** Receives every call's usage, cache hits included. Default: a fresh meter. */
  meter?: UsageMeter;
  /**
   * Which steps reason (see {@link REASONING_STEPS}): a call of a step that does not gets
   * `reasoningTokens: 0`, so the model's template switches reasoning off. Default: none applied
   * (every call keeps its own budget).
   */
  reasoning?: ReasoningPolicy;
}

/** Bump when the key recipe or the stored value format changes. */
const KEY_VERSION = 'llm-call/1';

interface StoredCall {
  text?: string;
  stopReason?: LlmStopReason;
  value?: unknown;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Wraps any Llm with the content-addressed call cache and usage accounting. The key covers
 * everything that decides the output: the model identity (file fingerprint), prompt name and
 * version, the rendered system and user text, the JSON schema, and the sampling settings. So a
 * resumed or repeated job makes no model call for work already done, and a changed prompt
 * file, schema or model misses the cache instead of returning stale output.
 */
export class CachingLlm implements Llm {
  readonly identity: string;
  readonly contextTokens: number | undefined;
  readonly meter: UsageMeter;
  readonly #inner: Llm;
  readonly #store: CallCacheStore;
  readonly #reasoning: ReasoningPolicy | undefined;

  constructor(inner: Llm, options: CachingLlmOptions) {
    this.#inner = inner;
    this.#store = options.store;
    this.#reasoning = options.reasoning;
    this.meter = options.meter ?? new UsageMeter();
    this.identity = inner.identity;
    this.contextTokens = inner.contextTokens;
  }

  /** Read through: an inference server's model is known to reason only once a reply shows it. */
  get reasons(): boolean | undefined {
    return this.#inner.reasons;
  }

  /** Read through: an endpoint pool's parallelism follows which endpoints are up. */
  get parallelism(): number {
    return this.#inner.parallelism;
  }

  /** The same model and cache, recording usage into `meter` (usually `this.meter.child()` for a job or question). */
  withMeter(meter: UsageMeter): CachingLlm {
    return new CachingLlm(this.#inner, {
      store: this.#store,
      meter,
      ...(this.#reasoning ? { reasoning: this.#reasoning } : {}),
    });
  }

  /** The cache key of a call (exposed for tests and for tools that inspect the cache). */
  keyFor(kind: 'text' | 'json', prompt: RenderedPrompt, options: LlmCallOptions = {}, schemaText = ''): string {
    const sampling = JSON.stringify({
      maxTokens: options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens,
      temperature: options.temperature ?? LLM_CALL_DEFAULTS.temperature,
      // A seed joins the key only when set, so caches written before it existed still hit.
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      // Only a non-default reasoning budget joins the key, so caches written before it existed still hit.
      ...(options.reasoningTokens !== undefined && options.reasoningTokens !== LLM_CALL_DEFAULTS.reasoningTokens
        ? { reasoningTokens: options.reasoningTokens }
        : {}),
    });
    return hashParts([
      KEY_VERSION,
      this.identity,
      kind,
      prompt.name,
      prompt.version,
      prompt.system,
      prompt.user,
      schemaText,
      sampling,
    ]);
  }

  async generateText(prompt: RenderedPrompt, callOptions: LlmCallOptions = {}): Promise<LlmTextResult> {
    const options = this.#withPolicy(prompt, callOptions);
    const key = this.keyFor('text', prompt, options);
    const hit = this.#lookup(key);
    if (hit?.text !== undefined) {
      options.onTextChunk?.(hit.text);
      return { text: hit.text, stopReason: hit.stopReason ?? 'eos', usage: this.#hitUsage(hit) };
    }
    const result = await this.#inner.generateText(prompt, options);
    this.meter.record(result.usage);
    // An empty reply is a miss, not an answer: kept, a greedy call would return it on every run.
    if (result.text.trim() !== '')
      this.#save(key, prompt, { text: result.text, stopReason: result.stopReason, ...tokens(result.usage) });
    return result;
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    callOptions: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const options = this.#withPolicy(prompt, callOptions);
    const key = this.keyFor('json', prompt, options, zodJsonSchema(schema).text);
    const hit = this.#lookup(key);
    if (hit && 'value' in hit) {
      // The schema is part of the key, but a transform or refinement may still reject a stored value: then recompute.
      const parsed = schema.safeParse(hit.value);
      if (parsed.success) {
        // Streamed as a model would write it: the JSON text, which listeners decode.
        options.onTextChunk?.(JSON.stringify(hit.value));
        return { value: parsed.data as z.infer<S>, usage: this.#hitUsage(hit) };
      }
    }
    const result = await this.#inner.generateJson(prompt, schema, options);
    this.meter.record(result.usage);
    if (!isEmptyReply(result.value)) {
      this.#save(key, prompt, { value: result.value, ...tokens(result.usage) });
      return result;
    }
    // An empty reply (every field an empty list or text) is not kept: a greedy call would give it
    // again on every run. Asked once more with other sampling; that reply is kept only when it says something.
    const again = await this.#inner.generateJson(prompt, schema, { ...options, ...emptyRetrySampling(options) });
    this.meter.record(again.usage);
    if (!isEmptyReply(again.value)) this.#save(key, prompt, { value: again.value, ...tokens(again.usage) });
    return again;
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }

  #withPolicy(prompt: RenderedPrompt, options: LlmCallOptions): LlmCallOptions {
    const reasoningTokens = reasoningTokensFor(prompt.name, this.#reasoning, options.reasoningTokens);
    return reasoningTokens === options.reasoningTokens ? options : { ...options, reasoningTokens };
  }

  #lookup(key: string): StoredCall | undefined {
    const raw = this.#store.get(key);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as StoredCall;
    } catch {
      return undefined; // a damaged entry is a miss; the fresh result overwrites it
    }
  }

  #hitUsage(hit: StoredCall): LlmUsage {
    const usage: LlmUsage = {
      promptTokens: hit.promptTokens,
      completionTokens: hit.completionTokens,
      durationMs: 0,
      cached: true,
    };
    this.meter.record(usage);
    return usage;
  }

  #save(key: string, prompt: RenderedPrompt, call: StoredCall): void {
    this.#store.put(key, JSON.stringify(call), {
      promptName: prompt.name,
      promptVersion: prompt.version,
      promptTokens: call.promptTokens,
      completionTokens: call.completionTokens,
    });
  }
}

/** Sampling of the second ask after an empty reply: not greedy, and a seed neither the first call nor its invalid-reply retry used. */
function emptyRetrySampling(options: LlmCallOptions): Pick<LlmCallOptions, 'temperature' | 'seed'> {
  const first = firstSampling(options);
  return {
    temperature: Math.max(first.temperature, EMPTY_RETRY_TEMPERATURE),
    seed: EMPTY_RETRY_SEED + (first.seed ?? 0),
  };
}

const EMPTY_RETRY_TEMPERATURE = 0.5;
const EMPTY_RETRY_SEED = 101;

/** A reply that says nothing: null, an empty text or list, or an object whose every field is one of those. */
export function isEmptyReply(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    const fields = Object.values(value as Record<string, unknown>);
    return fields.every(
      (f) =>
        f === null ||
        f === undefined ||
        (typeof f === 'string' && f.trim() === '') ||
        (Array.isArray(f) && f.length === 0),
    );
  }
  return false;
}

function tokens(usage: LlmUsage): Pick<StoredCall, 'promptTokens' | 'completionTokens'> {
  return { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
}
