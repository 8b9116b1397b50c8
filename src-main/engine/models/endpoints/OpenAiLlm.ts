import type OpenAI from 'openai';
import type { z } from 'zod';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import {
  CHAT_TEMPLATE_TOKENS,
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmStopReason,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from '../Llm.js';
import { zodJsonSchema } from '../grammarSchema.js';
import { firstSampling, generateStructured, type Sampling } from '../structuredReply.js';
import type { EndpointConfig } from './EndpointConfig.js';
import {
  DEFAULT_FIRST_BYTE_MS,
  DEFAULT_STALL_MS,
  endpointClient,
  serverRoot,
  withCallSignal,
} from './endpointClient.js';
import { EndpointStall, endpointError } from './endpointErrors.js';
import { fitMaxTokens, minimumRoom, roomStatedByRefusal } from './contextFit.js';
import { InlineThoughtSplitter, thinkingOff, type ThinkingOff } from './replyReasoning.js';
import { measureTokenEstimate, serverFacts, type ServerKind, type TemplateReading } from './serverFacts.js';
import type { TokenEstimate } from './TokenEstimate.js';

export interface OpenAiLlmOptions {
  /** Silence between two streamed chunks after which the call is an endpoint failure (stalled). Default 120 s. */
  stallMs?: number;
  /**
   * Time to the reply's first chunk (headers included). Not a stall: a busy server holds a call in
   * its queue until a slot frees (Ollama's default is one slot), then reads the whole prompt before
   * the first token. Default 10 min.
   */
  firstByteMs?: number;
  signal?: AbortSignal;
}

/** Default of {@link OpenAiLlmOptions.firstByteMs} (shared with the embedder). */
export { DEFAULT_FIRST_BYTE_MS };

/**
 * A reply whose `prompt_tokens` is below this share of our estimate was cut by the server: Ollama
 * truncates a prompt longer than its `num_ctx` and says nothing (runner: "truncating input
 * prompt", keeping the first `num_keep` tokens and the end). The estimate errs long (3
 * characters of English a token where BPE takes ~4), so an uncut prompt stays above ~0.7 of it.
 */
const TRUNCATED_SHARE = 0.5;

type ResponseFormat = OpenAI.Chat.Completions.ChatCompletionCreateParams['response_format'];

interface Completion {
  text: string;
  stopReason: LlmStopReason;
  usage: LlmUsage;
}

/** A streamed delta as llama-server (`reasoning_content`), vLLM (`reasoning`, formerly `reasoning_content`) and Ollama (`reasoning`) send it. */
type ReasoningDelta = { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };

/**
 * A generation model served by one OpenAI-compatible server (llama-server, vLLM, Ollama, LM
 * Studio), through the official client. Every call streams, so a server that goes quiet is caught
 * by the stall time; structured steps ask for the server's JSON-schema output
 * (`response_format: json_schema`, which llama-server and vLLM enforce while decoding) and are
 * validated here with the same zod schema. Its identity is the model's, never the URL, so two
 * servers of the same model share the call cache.
 */
export class OpenAiLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly servedModel: string;
  /** Requests the server says it runs at once (llama-server `total_slots`), when it says. */
  readonly slots: number | undefined;
  readonly config: EndpointConfig;
  /** The server, as far as it says (it decides how reasoning is switched off). */
  readonly serverKind: ServerKind;
  readonly #client: OpenAI;
  readonly #stallMs: number;
  readonly #firstByteMs: number;
  /** The server's token estimate (TokenEstimate.ts), corrected by the `usage` of its replies. */
  readonly #tokens: TokenEstimate;
  /** The context as reported, or as learned from a reply the server cut (servers that report none). */
  #contextTokens: number | undefined;
  /**
   * Whether the model reasons: as the server says at connect time (llama-server's `/props`
   * template, Ollama's `thinking` capability: see ServerFacts.reasons), else once a reply carried
   * a thought (vLLM, LM Studio). A call that lets it reason gets its reasoning budget on top of
   * `max_tokens`, since the server counts the thought against it.
   */
  #reasons: boolean;
  /** What a step without reasoning sends, for this server and the template it shows (llama-server `/props`, vLLM `/tokenize`). */
  readonly #off: ThinkingOff;

  private constructor(init: {
    config: EndpointConfig;
    client: OpenAI;
    servedModel: string;
    contextTokens: number | undefined;
    tokens: TokenEstimate;
    stallMs: number;
    firstByteMs: number;
    kind: ServerKind;
    reasons?: boolean;
    slots?: number;
    chatTemplate?: string;
    templateReading?: TemplateReading;
  }) {
    this.config = init.config;
    this.#client = init.client;
    this.servedModel = init.servedModel;
    this.identity = openAiModelIdentity(init.config.model, init.servedModel);
    this.slots = init.slots;
    this.parallelism = Math.min(init.config.concurrency, init.slots ?? Infinity);
    this.#contextTokens = init.contextTokens;
    this.#tokens = init.tokens;
    this.#stallMs = init.stallMs;
    this.#firstByteMs = init.firstByteMs;
    this.serverKind = init.kind;
    this.#reasons = init.reasons === true;
    this.#off = thinkingOff(init.kind, init.templateReading);
  }

  /**
   * Whether the model reasons, as far as seen (see `#reasons`): the evidence budget then keeps the
   * reasoning budget out of the context, as for a local thinking model. Read it when needed: it
   * turns true with the first reply that carries a thought.
   */
  get reasons(): boolean {
    return this.#reasons;
  }

  /** Tokens of one call's context: as the server reports it, else as learned from a reply it cut; undefined when neither. */
  get contextTokens(): number | undefined {
    return this.#contextTokens;
  }

  /** Asks the server what it serves, its context and its tokenizer; an unreachable server is an endpoint failure. */
  static async create(config: EndpointConfig, options: OpenAiLlmOptions = {}): Promise<OpenAiLlm> {
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    const firstByteMs = Math.max(options.firstByteMs ?? DEFAULT_FIRST_BYTE_MS, stallMs);
    // The client's own timeout ends at the headers, which llama-server sends with the first token.
    const client = endpointClient(config, firstByteMs);
    const facts = await serverFacts(client, config, options.signal);
    const tokens = await measureTokenEstimate(client, config, options.signal, facts.servedModel);
    return new OpenAiLlm({ config, client, ...facts, tokens, stallMs, firstByteMs });
  }

  /**
   * An estimate, since the interface is synchronous and the tokenizer sits on the server: per
   * script, calibrated by the server's `/tokenize` at connect time where it has one, corrected by
   * the prompt tokens its replies report.
   */
  countTokens(text: string): number {
    return this.#tokens.count(text);
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    return this.#complete(prompt, options, undefined, firstSampling(options));
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const { json } = zodJsonSchema(schema);
    const format: ResponseFormat = {
      type: 'json_schema',
      json_schema: { name: schemaName(prompt.name), schema: json, strict: true },
    };
    return generateStructured(
      prompt,
      schema,
      json,
      options,
      (sampling) => this.#complete(prompt, options, format, sampling),
      { endpoint: this.config.id },
    );
  }

  async dispose(): Promise<void> {
    // Nothing is held: the client's sockets close with their requests.
  }

  /**
   * One call with `max_tokens` fitted to the context; when vLLM refuses it all the same (our token
   * count was an estimate) and states the room its own count leaves, asked once more with that.
   */
  async #complete(
    prompt: RenderedPrompt,
    options: LlmCallOptions,
    format: ResponseFormat | undefined,
    sampling: Sampling,
  ): Promise<Completion> {
    const wanted = this.#maxTokens(options);
    const maxTokens = fitMaxTokens({
      wanted,
      contextTokens: this.contextTokens,
      promptTokens: await this.#promptTokens(prompt, wanted, options.signal),
      endpoint: this.config.id,
      prompt: prompt.name,
    });
    const once = (budget: number) =>
      withCallSignal(options.signal, (requestSignal) =>
        this.#stream(prompt, options, requestSignal, format, sampling, budget),
      );
    try {
      return await once(maxTokens);
    } catch (error) {
      const room =
        error instanceof PolyhopError && error.code === 'BAD_INPUT' ? roomStatedByRefusal(error.message) : undefined;
      if (room === undefined || room >= maxTokens || room < minimumRoom(wanted)) throw error;
      return once(room);
    }
  }

  /**
   * The prompt's tokens with the template's: the estimate, or, when the estimate says the call
   * is near the context's end, the server's own count (`/tokenize` on llama-server and vLLM).
   */
  async #promptTokens(prompt: RenderedPrompt, wanted: number, signal?: AbortSignal): Promise<number> {
    const text = `${prompt.system}\n${prompt.user}`;
    const estimate = this.countTokens(text) + CHAT_TEMPLATE_TOKENS;
    if (this.contextTokens === undefined || estimate + wanted <= 0.8 * this.contextTokens) return estimate;
    if (this.serverKind !== 'llama-server' && this.serverKind !== 'vllm') return estimate;
    try {
      const body = { content: text, prompt: text, model: this.servedModel };
      const reply = await this.#client.post<{ tokens?: unknown[] }>(`${serverRoot(this.config.baseUrl)}/tokenize`, {
        body,
        ...(signal ? { signal } : {}),
      });
      return Array.isArray(reply.tokens) ? reply.tokens.length + CHAT_TEMPLATE_TOKENS : estimate;
    } catch {
      throwIfAborted(signal);
      return estimate;
    }
  }

  /** One streamed chat completion; every failure becomes a PolyhopError saying whether the endpoint is at fault. */
  async #stream(
    prompt: RenderedPrompt,
    options: LlmCallOptions,
    requestSignal: AbortSignal | undefined,
    format: ResponseFormat | undefined,
    sampling: Sampling,
    maxTokens: number,
  ): Promise<Completion> {
    const { signal } = options;
    throwIfAborted(signal);
    const started = performance.now();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      ...(prompt.system ? [{ role: 'system' as const, content: prompt.system }] : []),
      { role: 'user', content: prompt.user },
    ];
    const inline = new InlineThoughtSplitter();
    let thought = '';
    let finish: string | null = null;
    let reported: OpenAI.Completions.CompletionUsage | undefined;
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    try {
      const stream = await this.#client.chat.completions.create(
        {
          // The id `/v1/models` listed: vLLM and Ollama answer 404 for an alias it resolved from.
          model: this.servedModel,
          messages,
          // vLLM takes max_tokens as deprecated in favour of max_completion_tokens (vllm/entrypoints/
          // openai/chat_completion/protocol.py, ChatCompletionRequest); the others read max_tokens.
          ...(this.serverKind === 'vllm' ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
          temperature: sampling.temperature,
          ...(reasoningOff(options) ? this.#off.fields : {}),
          ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
          ...(format ? { response_format: format } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        requestSignal ? { signal: requestSignal } : {},
      );
      // The client's timeout covers the wait for headers; this the wait for the first chunk (vLLM
      // sends its headers at once and the first chunk with the first token), then the silence
      // between chunks.
      let quietMs = this.#firstByteMs;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          stalled = true;
          stream.controller.abort();
        }, quietMs);
      };
      arm();
      for await (const chunk of stream) {
        quietMs = this.#stallMs;
        arm();
        if (chunk.usage) reported = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as ReasoningDelta;
        thought += delta.reasoning_content ?? delta.reasoning ?? '';
        const piece = delta.content ? inline.push(delta.content) : '';
        if (piece) options.onTextChunk?.(piece);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      throwIfAborted(signal);
      if (stalled)
        throw new EndpointStall(
          `no data for ${quietMs} ms${quietMs === this.#firstByteMs ? ' (waiting for the first token)' : ''}`,
        );
      if (finish === null) throw new EndpointStall('the reply stream ended before the reply was complete');
    } catch (error) {
      throw endpointError(error, this.config, prompt.name, signal);
    } finally {
      clearTimeout(timer);
    }
    this.#checkNotCut(reported, prompt);
    this.#learnFromCount(reported, prompt);
    const reply = inline.finish();
    thought = [thought.trim(), reply.thought].filter(Boolean).join('\n');
    let answer = reply.answer;
    if (format && answer.trim() === '' && /^\s*[{[]/.test(thought)) {
      // A template that opens the thought in the prompt (QwQ, Qwen3.5) under a schema the server
      // applies from the first token: the model could never close the thought, so the server's
      // parser files the whole JSON reply as reasoning and sends no content (llama.cpp issues
      // #20345 and #22537, LM Studio #1773). That JSON is the answer, and no reasoning happened.
      answer = thought;
      thought = '';
    }
    if (thought) this.#reasons = true;
    return {
      text: answer,
      stopReason: finish === 'length' ? 'maxTokens' : 'eos',
      usage: this.#usage(reported, prompt, answer, thought, started),
    };
  }

  /**
   * A server that reports no context (Ollama, LM Studio) may cut a long prompt without a word:
   * its `prompt_tokens` then falls far below our estimate. That is BAD_INPUT, as a refusal would be
   * (batched steps ask for fewer items, QA for less evidence), and the count it kept becomes the
   * context later calls are fitted to.
   */
  #checkNotCut(reported: OpenAI.Completions.CompletionUsage | undefined, prompt: RenderedPrompt): void {
    const counted = reported?.prompt_tokens;
    if (
      counted === undefined ||
      counted <= 0 ||
      (this.#contextTokens !== undefined && this.serverKind !== 'ollama' && this.serverKind !== 'other')
    )
      return;
    const estimate = this.countTokens(`${prompt.system}\n${prompt.user}`) + CHAT_TEMPLATE_TOKENS;
    if (counted >= TRUNCATED_SHARE * estimate) return;
    this.#contextTokens = Math.min(this.#contextTokens ?? Infinity, counted);
    throw new PolyhopError(
      'BAD_INPUT',
      `${prompt.name}: endpoint ${this.config.id} (${this.config.baseUrl}) read ${counted} prompt tokens ` +
        `of about ${estimate}: the server cut the prompt to its context without saying so` +
        (this.serverKind === 'ollama'
          ? " (Ollama truncates to its num_ctx: start it with OLLAMA_CONTEXT_LENGTH, or set the model's num_ctx, above the prompt)"
          : ''),
      { details: { endpoint: this.config.id, promptTokens: estimate, countedTokens: counted, truncated: true } },
    );
  }

  /**
   * The server's prompt count corrects the estimate. Where the server may cut a prompt silently
   * (Ollama, unknown servers) a count is exact only below the context it was seen to cut at; else
   * it is a lower bound, which can raise the estimate but not lower it.
   */
  #learnFromCount(reported: OpenAI.Completions.CompletionUsage | undefined, prompt: RenderedPrompt): void {
    const counted = reported?.prompt_tokens;
    if (counted === undefined || counted <= 0) return;
    const mayCut = this.serverKind === 'ollama' || this.serverKind === 'other';
    const exact = !mayCut || (this.#contextTokens !== undefined && counted < this.#contextTokens);
    this.#tokens.learn([prompt.system, prompt.user], counted, CHAT_TEMPLATE_TOKENS, exact);
  }

  /**
   * The answer's budget, plus the reasoning budget when a model that reasons does so: the call lets
   * it, or its template cannot switch the thought off (the default budget then). The server counts
   * the thought against `max_tokens`.
   */
  #maxTokens(options: LlmCallOptions): number {
    const answer = options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens;
    // `stillReasons` is known from the template (llama-server's `/props`, vLLM's rendering), before any reply shows a thought.
    if (reasoningOff(options)) return this.#off.stillReasons ? answer + LLM_CALL_DEFAULTS.reasoningTokens : answer;
    if (!this.#reasons) return answer;
    return answer + (options.reasoningTokens ?? LLM_CALL_DEFAULTS.reasoningTokens);
  }

  /**
   * The server's `usage`; a server that reports none is estimated with {@link countTokens}. The
   * thought's tokens are the server's `reasoning_tokens` where it gives them, else estimated from
   * the thought's text (llama-server, vLLM and Ollama report none).
   */
  #usage(
    reported: OpenAI.Completions.CompletionUsage | undefined,
    prompt: RenderedPrompt,
    text: string,
    thought: string,
    started: number,
  ): LlmUsage {
    const reasoningTokens =
      reported?.completion_tokens_details?.reasoning_tokens ?? (thought ? this.countTokens(thought) : undefined);
    return {
      promptTokens: reported?.prompt_tokens ?? this.countTokens(prompt.system + prompt.user),
      completionTokens: reported?.completion_tokens ?? this.countTokens(thought + text),
      ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
      durationMs: performance.now() - started,
      cached: false,
    };
  }
}

/** Whether the call's step does not reason (the reasoning policy gave it no reasoning budget). */
function reasoningOff(options: LlmCallOptions): boolean {
  return options.reasoningTokens === 0;
}

/** The cache-relevant identity of a served model: the configured name and what the server says it serves. */
export function openAiModelIdentity(model: string, servedModel: string): string {
  return model === servedModel ? `openai:${model}` : `openai:${model}=${servedModel}`;
}

/** `response_format` names allow letters, digits, `_` and `-` (at most 64). */
function schemaName(promptName: string): string {
  return promptName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'reply';
}
