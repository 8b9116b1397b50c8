import type OpenAI from 'openai';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { hashParts } from '../../base/hash.js';
import type { EmbedOptions, Embedder } from '../Embedder.js';
import { embedInBatches } from '../embedders/embedInBatches.js';
import { detectEmbeddingPrefixes, type EmbeddingPrefixes } from '../embedders/embeddingPrefixes.js';
import { l2Normalise } from '../embedders/l2Normalise.js';
import { poolWindowVectors, tokenWindows } from '../embedders/pooledWindows.js';
import type { EndpointConfig } from './EndpointConfig.js';
import { DEFAULT_FIRST_BYTE_MS, DEFAULT_STALL_MS, endpointClient, readBodyWithin, withCallSignal } from './endpointClient.js';
import { EndpointStall, endpointError } from './endpointErrors.js';
import { measureCharsPerToken, serverFacts, type ServerFacts } from './serverFacts.js';

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

/** Characters per token assumed when the server cannot tokenize (Ollama, LM Studio): low, so windows err short. */
const FALLBACK_CHARS_PER_TOKEN = 3;
/** Tokens a window leaves for the model's own special tokens ([CLS], [SEP]). */
const SPECIAL_TOKENS = 4;
/** Share of the window a cut fills: characters per token vary by text (±10% within a language). */
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
 * asked again. Windows are cut by characters at the server's measured characters per token.
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
  #charsPerToken: number;

  private constructor(init: {
    config: EndpointConfig;
    client: OpenAI;
    servedModel: string;
    dimension: number;
    prefixes: EmbeddingPrefixes;
    batchSize: number;
    stallMs: number;
    windowTokens: number | undefined;
    charsPerToken: number;
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
    this.#charsPerToken = init.charsPerToken;
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
    const probe = await requestVectors(client, config, servedModel, ['dimension probe'], stallMs, options.signal);
    const dimension = probe[0]?.length ?? 0;
    if (dimension === 0) throw new PolyhopError('MODEL_ERROR', `Endpoint ${config.id} (${config.baseUrl}) returned an empty embedding for model "${config.model}"`, { details: { endpoint: config.id } });
    const charsPerToken = (await measureCharsPerToken(client, config, options.signal, servedModel)) ?? FALLBACK_CHARS_PER_TOKEN;
    return new OpenAiEmbedder({ config, client, servedModel, dimension, prefixes, batchSize, stallMs, windowTokens: embeddingWindow(facts), charsPerToken, slots: facts.slots });
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefix = options.purpose === 'query' ? this.prefixes.query : this.prefixes.passage;
    return embedInBatches(texts, this.batchSize, options.signal, (batch) => this.#embedBatch(batch, prefix, options.signal));
  }

  /** One batch of texts, each cut into windows; asked again with shorter windows when the server refuses one as too long. */
  async #embedBatch(texts: readonly string[], prefix: string, signal?: AbortSignal): Promise<Float32Array[]> {
    for (let shrink = 0; ; shrink++) {
      const windowed = texts.map((t) => this.#windows(t, prefix));
      try {
        const vectors = await requestVectors(this.#client, this.config, this.servedModel, windowed.flat(), this.#stallMs, signal);
        for (const v of vectors) {
          if (v.length !== this.dimension) {
            throw new PolyhopError('MODEL_ERROR', `Endpoint ${this.config.id} returned a ${v.length}-dimensional vector; the model gave ${this.dimension} before`, { details: { endpoint: this.config.id } });
          }
        }
        let at = 0;
        return windowed.map((pieces) => {
          const own = vectors.slice(at, (at += pieces.length));
          return poolWindowVectors(own, pieces.map((p) => p.length), true);
        });
      } catch (error) {
        if (!(error instanceof PolyhopError) || error.code !== 'BAD_INPUT' || shrink >= MAX_SHRINKS) throw error;
        this.#learnFromRefusal(error.details.windowTokens);
      }
    }
  }

  /**
   * A refusal for length: the window it names replaces a larger one; one that names none or
   * the same (the estimate ran short: a script with fewer characters per token) shrinks the
   * characters per token.
   */
  #learnFromRefusal(named: unknown): void {
    if (typeof named === 'number' && (this.#windowTokens === undefined || named < this.#windowTokens)) this.#windowTokens = named;
    else if (this.#windowTokens !== undefined) this.#charsPerToken *= 0.7;
    else this.#windowTokens = 512;
  }

  /** `text` with the purpose prefix, or its windows each with the prefix when it is longer than the window. */
  #windows(text: string, prefix: string): string[] {
    const window = this.#windowTokens;
    const budget = window === undefined ? Infinity : Math.floor((window - SPECIAL_TOKENS) * this.#charsPerToken * WINDOW_FILL) - prefix.length;
    if ((prefix + text).length <= budget) return [prefix + text];
    const size = Math.max(16, budget);
    return tokenWindows([...text], size).map((chars) => prefix + chars.join(''));
  }

  async dispose(): Promise<void> {
    // Nothing is held.
  }
}

/** One `/embeddings` request; vectors matched to texts by their `index`, never by position. */
async function requestVectors(client: OpenAI, config: EndpointConfig, servedModel: string, texts: readonly string[], stallMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
  throwIfAborted(signal);
  let reply: OpenAI.Embeddings.CreateEmbeddingResponse;
  try {
    reply = await withCallSignal(signal, async (own) => {
      const response = await client.embeddings.create({ model: servedModel, input: [...texts], encoding_format: 'float' }, own ? { signal: own } : {}).asResponse();
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
    if (Number.isInteger(item.index) && item.index >= 0 && item.index < texts.length && Array.isArray(item.embedding)) out[item.index] = l2Normalise(Float32Array.from(item.embedding));
  }
  const missing = out.findIndex((v) => v === undefined);
  if (missing >= 0) {
    throw new PolyhopError('MODEL_ERROR', `Endpoint ${config.id} (${config.baseUrl}) returned ${reply.data?.length ?? 0} embeddings for ${texts.length} texts (none for text ${missing})`, {
      details: { endpoint: config.id },
    });
  }
  return out as Float32Array[];
}

/** The embedding window a server reports: vLLM `max_model_len`, llama-server's slot `n_ctx`, Ollama's `context_length`. */
function embeddingWindow(facts: ServerFacts): number | undefined {
  return facts.kind === 'ollama' ? facts.modelContextTokens : facts.contextTokens;
}

export function openAiEmbedderIdentity(model: string, servedModel: string, prefixes: EmbeddingPrefixes): string {
  const name = model === servedModel ? model : `${model}=${servedModel}`;
  return `openai:${name}:${hashParts([prefixes.query, prefixes.passage]).slice(0, 12)}`;
}
