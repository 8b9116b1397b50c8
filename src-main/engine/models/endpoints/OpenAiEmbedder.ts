import type OpenAI from 'openai';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { hashParts } from '../../base/hash.js';
import type { EmbedOptions, Embedder } from '../Embedder.js';
import { embedInBatches } from '../embedders/embedInBatches.js';
import { detectEmbeddingPrefixes, type EmbeddingPrefixes } from '../embedders/embeddingPrefixes.js';
import { l2Normalise } from '../embedders/l2Normalise.js';
import { poolWindowVectors } from '../embedders/pooledWindows.js';
import type { EndpointConfig } from './EndpointConfig.js';
import {
  DEFAULT_FIRST_BYTE_MS,
  DEFAULT_STALL_MS,
  endpointClient,
  readBodyWithin,
  withCallSignal,
} from './endpointClient.js';
import { EndpointStall, endpointError } from './endpointErrors.js';
import { measureTokenEstimate, serverFacts, type ServerFacts, type ServerKind } from './serverFacts.js';
import type { TokenEstimate } from './TokenEstimate.js';

export interface OpenAiEmbedderOptions {
  /** Silence after a reply has started (its headers came) before the request counts as stalled, an endpoint failure. Default 120 s. */
  stallMs?: number;
  /**
   * Time to the reply's headers. Not a stall: a request waits in the server's queue behind others
   * (llama-server's slots, Ollama's one runner), then the server embeds the whole batch before it
   * answers. Default 10 min, as for generation.
   */
  firstByteMs?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
  signal?: AbortSignal;
}

/** Tokens a window leaves for the model's own special tokens ([CLS], [SEP]). */
const SPECIAL_TOKENS = 4;
/** Special tokens a server counts in each input's `usage` (e5's and bge's [CLS] and [SEP], XLM-R's <s> and </s>). */
const COUNTED_SPECIAL_TOKENS = 2;
/** Share of the window a cut fills: tokens per character vary by text (±10% within a language). */
const WINDOW_FILL = 0.9;
/** Times a refused batch is asked again with shorter windows before the refusal stands. */
const MAX_SHRINKS = 4;

/**
 * An embedding model served by one OpenAI-compatible server (`POST /embeddings`). Vectors are
 * L2-normalised here whatever the server does; query/passage prefixes follow the model name as
 * for local embedders (e5: `query: ` / `passage: `); the dimension is what the first (probe) call
 * returned. Identity by model, never by URL.
 *
 * A text longer than the model's window is embedded in consecutive windows, each with the purpose
 * prefix, and their vectors pooled (pooledWindows.ts, as the local embedders do): servers refuse
 * such a text (llama-server HTTP 500 past its physical batch, vLLM 400 past `max_model_len`) or,
 * Ollama, cut it silently. The window is what the server says: vLLM's `max_model_len`,
 * llama-server's per-slot `n_ctx` (`/props`), Ollama's `context_length` (`/api/show`); a refusal
 * that names a smaller one (llama-server's "current batch size: 512") replaces it and the batch is
 * asked again. Windows are cut by the server's token estimate (TokenEstimate.ts: per script, calibrated
 * by its `/tokenize` where it has one, corrected by the `usage` of its replies and its refusals).
 */
export class OpenAiEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly servedModel: string;
  readonly config: EndpointConfig;
  readonly prefixes: Readonly<EmbeddingPrefixes>;
  /** Texts per request. */
  readonly batchSize: number;
  /** Requests the server says it runs at once (llama-server `total_slots`), when it says. */
  readonly slots: number | undefined;
  readonly #client: OpenAI;
  readonly #stallMs: number;
  /** Tokens one input may take, when known (learned from the server, or from its refusals). */
  #windowTokens: number | undefined;
  readonly #tokens: TokenEstimate;
  readonly #kind: ServerKind;

  private constructor(init: {
    config: EndpointConfig;
    client: OpenAI;
    servedModel: string;
    dimension: number;
    prefixes: EmbeddingPrefixes;
    batchSize: number;
    stallMs: number;
    windowTokens: number | undefined;
    tokens: TokenEstimate;
    kind: ServerKind;
    slots: number | undefined;
  }) {
    this.config = init.config;
    this.#client = init.client;
    this.servedModel = init.servedModel;
    this.dimension = init.dimension;
    this.prefixes = init.prefixes;
    this.batchSize = init.batchSize;
    this.#stallMs = init.stallMs;
    this.#windowTokens = init.windowTokens;
    this.#tokens = init.tokens;
    this.#kind = init.kind;
    this.slots = init.slots;
    this.identity = openAiEmbedderIdentity(init.config.model, init.servedModel, init.prefixes);
  }

  /** Tokens one input may take, as far as the server has said (undefined: not known). */
  get windowTokens(): number | undefined {
    return this.#windowTokens;
  }

  static async create(config: EndpointConfig, options: OpenAiEmbedderOptions = {}): Promise<OpenAiEmbedder> {
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    // The client's own timeout ends at the headers: the first-byte limit; readBodyWithin the rest.
    const client = endpointClient(config, Math.max(options.firstByteMs ?? DEFAULT_FIRST_BYTE_MS, stallMs));
    const facts = await serverFacts(client, config, options.signal);
    const { servedModel } = facts;
    const prefixes = detectEmbeddingPrefixes([config.model, servedModel]);
    const batchSize = options.batchSize ?? 32;
    const { vectors: probe } = await requestVectors(
      client,
      config,
      servedModel,
      ['dimension probe'],
      stallMs,
      options.signal,
    );
    const dimension = probe[0]?.length ?? 0;
    if (dimension === 0)
      throw new PolyhopError(
        'MODEL_ERROR',
        `Endpoint ${config.id} (${config.baseUrl}) returned an empty embedding for model "${config.model}"`,
        { details: { endpoint: config.id } },
      );
    const tokens = await measureTokenEstimate(client, config, options.signal, servedModel);
    return new OpenAiEmbedder({
      config,
      client,
      servedModel,
      dimension,
      prefixes,
      batchSize,
      stallMs,
      windowTokens: embeddingWindow(facts),
      tokens,
      kind: facts.kind,
      slots: facts.slots,
    });
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefix = options.purpose === 'query' ? this.prefixes.query : this.prefixes.passage;
    return embedInBatches(texts, this.batchSize, options.signal, (batch) =>
      this.#embedBatch(batch, prefix, options.signal),
    );
  }

  /** One batch of texts, each cut into windows; asked again with shorter windows when the server refuses one as too long. */
  async #embedBatch(texts: readonly string[], prefix: string, signal?: AbortSignal): Promise<Float32Array[]> {
    for (let shrink = 0; ; shrink++) {
      const windowed = texts.map((t) => this.#windows(t, prefix));
      const sent = windowed.flat();
      try {
        const { vectors, promptTokens } = await requestVectors(
          this.#client,
          this.config,
          this.servedModel,
          sent,
          this.#stallMs,
          signal,
        );
        if (promptTokens !== undefined) this.#learnFromCount(sent, promptTokens);
        for (const v of vectors) {
          if (v.length !== this.dimension) {
            throw new PolyhopError(
              'MODEL_ERROR',
              `Endpoint ${this.config.id} returned a ${v.length}-dimensional vector; the model gave ${this.dimension} before`,
              { details: { endpoint: this.config.id } },
            );
          }
        }
        let at = 0;
        return windowed.map((pieces) => {
          const own = vectors.slice(at, (at += pieces.length));
          return poolWindowVectors(
            own,
            pieces.map((p) => p.length),
            true,
          );
        });
      } catch (error) {
        if (!(error instanceof PolyhopError) || error.code !== 'BAD_INPUT' || shrink >= MAX_SHRINKS) throw error;
        this.#learnFromRefusal(error.details.windowTokens, sent);
      }
    }
  }

  /**
   * A refusal for length: the window it names replaces a larger one; one that names none or
   * the same (the estimate ran short: a script with fewer characters per token) raises the
   * estimate of the refused texts' scripts.
   */
  #learnFromRefusal(named: unknown, sent: readonly string[]): void {
    if (typeof named === 'number' && (this.#windowTokens === undefined || named < this.#windowTokens))
      this.#windowTokens = named;
    else if (this.#windowTokens !== undefined) this.#tokens.stretch(sent);
    else this.#windowTokens = 512;
  }

  /**
   * The server's `usage.prompt_tokens` for what was sent corrects the estimate. Ollama cuts an
   * input past the window silently and counts what it kept, so its count is exact only while it
   * is below one window (a cut input alone counts a whole window); else only a lower bound.
   */
  #learnFromCount(sent: readonly string[], counted: number): void {
    const mayCut = this.#kind === 'ollama' || this.#kind === 'other';
    const exact = !mayCut || (this.#windowTokens !== undefined && counted < this.#windowTokens);
    this.#tokens.learn(sent, counted, COUNTED_SPECIAL_TOKENS * sent.length, exact);
  }

  /** `text` with the purpose prefix, or its windows each with the prefix when it is longer than the window. */
  #windows(text: string, prefix: string): string[] {
    const window = this.#windowTokens;
    if (window === undefined) return [prefix + text];
    const budget = Math.max(16, Math.floor((window - SPECIAL_TOKENS) * WINDOW_FILL) - this.#tokens.count(prefix));
    return this.#tokens.cut(text, budget).map((piece) => prefix + piece);
  }

  async dispose(): Promise<void> {
    // Nothing is held.
  }
}

/** One `/embeddings` request; vectors matched to texts by their `index`, never by position; the tokens the server counted, when it says. */
async function requestVectors(
  client: OpenAI,
  config: EndpointConfig,
  servedModel: string,
  texts: readonly string[],
  stallMs: number,
  signal?: AbortSignal,
): Promise<{ vectors: Float32Array[]; promptTokens: number | undefined }> {
  throwIfAborted(signal);
  let reply: OpenAI.Embeddings.CreateEmbeddingResponse;
  try {
    reply = await withCallSignal(signal, async (own) => {
      const response = await client.embeddings
        .create({ model: servedModel, input: [...texts], encoding_format: 'float' }, own ? { signal: own } : {})
        .asResponse();
      const text = await readBodyWithin(response, stallMs);
      try {
        return JSON.parse(text) as OpenAI.Embeddings.CreateEmbeddingResponse;
      } catch {
        throw new EndpointStall(`the reply was cut (${text.length} characters of JSON that does not parse)`);
      }
    });
  } catch (error) {
    throw endpointError(error, config, 'embedding', signal);
  }
  const out = new Array<Float32Array | undefined>(texts.length);
  for (const item of reply.data ?? []) {
    if (Number.isInteger(item.index) && item.index >= 0 && item.index < texts.length && Array.isArray(item.embedding))
      out[item.index] = l2Normalise(Float32Array.from(item.embedding));
  }
  const missing = out.findIndex((v) => v === undefined);
  if (missing >= 0) {
    throw new PolyhopError(
      'MODEL_ERROR',
      `Endpoint ${config.id} (${config.baseUrl}) returned ${reply.data?.length ?? 0} embeddings for ${texts.length} texts (none for text ${missing})`,
      {
        details: { endpoint: config.id },
      },
    );
  }
  const counted = reply.usage?.prompt_tokens;
  return {
    vectors: out as Float32Array[],
    promptTokens: typeof counted === 'number' && counted > 0 ? counted : undefined,
  };
}

/** The embedding window a server reports: vLLM `max_model_len`, llama-server's slot `n_ctx`, Ollama's `context_length`. */
function embeddingWindow(facts: ServerFacts): number | undefined {
  return facts.kind === 'ollama' ? facts.modelContextTokens : facts.contextTokens;
}

export function openAiEmbedderIdentity(model: string, servedModel: string, prefixes: EmbeddingPrefixes): string {
  const name = model === servedModel ? model : `${model}=${servedModel}`;
  return `openai:${name}:${hashParts([prefixes.query, prefixes.passage]).slice(0, 12)}`;
}
