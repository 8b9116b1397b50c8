import type OpenAI from 'openai';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { hashParts } from '../../base/hash.js';
import type { EmbedOptions, Embedder } from '../Embedder.js';
import { embedInBatches } from '../embedders/embedInBatches.js';
import { applyPrefix, detectEmbeddingPrefixes, type EmbeddingPrefixes } from '../embedders/embeddingPrefixes.js';
import { l2Normalise } from '../embedders/l2Normalise.js';
import type { EndpointConfig } from './EndpointConfig.js';
import { DEFAULT_STALL_MS, endpointClient, withCallSignal } from './endpointClient.js';
import { EndpointStall, endpointError } from './endpointErrors.js';
import { serverFacts } from './serverFacts.js';

export interface OpenAiEmbedderOptions {
  /** Time a request may take before it counts as an endpoint failure. Default 120 s. */
  stallMs?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
  signal?: AbortSignal;
}

/**
 * An embedding model served by one OpenAI-compatible server (`POST /embeddings`). Vectors are
 * L2-normalised here whatever the server does; query/passage prefixes follow the model name as
 * for local embedders (e5: `query: ` / `passage: `); the dimension is what the first (probe) call
 * returned. Identity by model, never by URL.
 */
export class OpenAiEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly servedModel: string;
  readonly config: EndpointConfig;
  readonly prefixes: Readonly<EmbeddingPrefixes>;
  /** Texts per request. */
  readonly batchSize: number;
  readonly #client: OpenAI;
  readonly #stallMs: number;

  private constructor(init: { config: EndpointConfig; client: OpenAI; servedModel: string; dimension: number; prefixes: EmbeddingPrefixes; batchSize: number; stallMs: number }) {
    this.config = init.config;
    this.#client = init.client;
    this.servedModel = init.servedModel;
    this.dimension = init.dimension;
    this.prefixes = init.prefixes;
    this.batchSize = init.batchSize;
    this.#stallMs = init.stallMs;
    this.identity = openAiEmbedderIdentity(init.config.model, init.servedModel, init.prefixes);
  }

  static async create(config: EndpointConfig, options: OpenAiEmbedderOptions = {}): Promise<OpenAiEmbedder> {
    const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
    const client = endpointClient(config, stallMs);
    const { servedModel } = await serverFacts(client, config, options.signal);
    const prefixes = detectEmbeddingPrefixes([config.model, servedModel]);
    const batchSize = options.batchSize ?? 32;
    const probe = await requestVectors(client, config, servedModel, ['dimension probe'], stallMs, options.signal);
    const dimension = probe[0]?.length ?? 0;
    if (dimension === 0) throw new PolyhopError('MODEL_ERROR', `Endpoint ${config.id} (${config.baseUrl}) returned an empty embedding for model "${config.model}"`, { details: { endpoint: config.id } });
    return new OpenAiEmbedder({ config, client, servedModel, dimension, prefixes, batchSize, stallMs });
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefixed = applyPrefix(texts, this.prefixes, options.purpose);
    return embedInBatches(prefixed, this.batchSize, options.signal, async (batch) => {
      const vectors = await requestVectors(this.#client, this.config, this.servedModel, batch, this.#stallMs, options.signal);
      for (const v of vectors) {
        if (v.length !== this.dimension) {
          throw new PolyhopError('MODEL_ERROR', `Endpoint ${this.config.id} returned a ${v.length}-dimensional vector; the model gave ${this.dimension} before`, { details: { endpoint: this.config.id } });
        }
      }
      return vectors;
    });
  }

  async dispose(): Promise<void> {
    // Nothing is held.
  }
}

/** One `/embeddings` request; vectors matched to texts by their `index`, never by position. */
async function requestVectors(client: OpenAI, config: EndpointConfig, servedModel: string, texts: readonly string[], stallMs: number, signal?: AbortSignal): Promise<Float32Array[]> {
  throwIfAborted(signal);
  const deadline = AbortSignal.timeout(stallMs);
  let reply: OpenAI.Embeddings.CreateEmbeddingResponse;
  try {
    reply = await withCallSignal(signal, (own) =>
      client.embeddings.create({ model: servedModel, input: [...texts], encoding_format: 'float' }, { signal: own ? AbortSignal.any([own, deadline]) : deadline }),
    );
  } catch (error) {
    // The client's timeout ends at the headers; the deadline also covers a body that never comes.
    throw endpointError(deadline.aborted && !signal?.aborted ? new EndpointStall(`no reply in ${stallMs} ms`) : error, config, 'embedding', signal);
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

export function openAiEmbedderIdentity(model: string, servedModel: string, prefixes: EmbeddingPrefixes): string {
  const name = model === servedModel ? model : `${model}=${servedModel}`;
  return `openai:${name}:${hashParts([prefixes.query, prefixes.passage]).slice(0, 12)}`;
}
