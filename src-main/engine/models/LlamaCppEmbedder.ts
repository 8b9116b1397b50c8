import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import { throwIfAborted } from '../base/abort.js';
import { mapConcurrent } from '../base/concurrency.js';
import { PolyhopError } from '../base/errors.js';
import { hashParts } from '../base/hash.js';
import type { EmbedOptions, Embedder } from './Embedder.js';
import { embedInBatches } from './embedders/embedInBatches.js';
import { errorMessage } from './embedders/errorMessage.js';
import { applyPrefix, detectEmbeddingPrefixes, type EmbeddingPrefixes } from './embedders/embeddingPrefixes.js';
import { fileFingerprint } from './embedders/fileFingerprint.js';
import { l2Normalise } from './embedders/l2Normalise.js';
import { poolWindowVectors, tokenWindows } from './embedders/pooledWindows.js';
import { getLlamaRuntime, type LlamaGpuChoice } from './llamaRuntime.js';

export interface LlamaCppEmbedderOptions {
  /** A GGUF embedding model (e.g. bge-m3, multilingual-e5 as GGUF). */
  modelPath: string;
  /** llama.cpp backend, shared process-wide with the generation model (see {@link getLlamaRuntime}). Default 'auto'. */
  gpu?: LlamaGpuChoice;
  /** Layers offloaded to the GPU. Default 'auto' (as many as fit next to the contexts); a failed GPU load falls back to the CPU. */
  gpuLayers?: 'auto' | number;
  /** CPU threads per context. Default: the machine's math cores (node-llama-cpp's own default of 6 is far too many on small machines). */
  threads?: number;
  /** Tokens per window; longer texts are embedded in windows and pooled. Default: the model's training context, at most 4096. */
  contextSize?: number;
  /**
   * Embedding contexts evaluated in parallel. A llama.cpp embedding context embeds one text at a
   * time, so several contexts are how texts of a batch overlap (mainly on a GPU). Default 1.
   */
  contexts?: number;
  /** Texts per batch; a cancel takes effect between batches. Default 32. */
  batchSize?: number;
  /** L2-normalise vectors. Default true. */
  normalise?: boolean;
  /** Put before queries. Default: recognised from the file name (e5: `query: `), else none. */
  queryPrefix?: string;
  /** Put before passages. Default: recognised from the file name (e5: `passage: `), else none. */
  passagePrefix?: string;
  signal?: AbortSignal;
}

/** Embeddings from a GGUF model through node-llama-cpp, on the GPU where there is one. */
export class LlamaCppEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly prefixes: Readonly<EmbeddingPrefixes>;
  /** Layers actually offloaded to the GPU (0 on the CPU). */
  readonly gpuLayers: number;
  readonly #model: LlamaModel;
  readonly #contexts: LlamaEmbeddingContext[];
  readonly #maxTokens: number;
  readonly #batchSize: number;
  readonly #normalise: boolean;

  private constructor(init: {
    identity: string;
    dimension: number;
    prefixes: EmbeddingPrefixes;
    model: LlamaModel;
    contexts: LlamaEmbeddingContext[];
    maxTokens: number;
    batchSize: number;
    normalise: boolean;
  }) {
    this.identity = init.identity;
    this.dimension = init.dimension;
    this.prefixes = init.prefixes;
    this.gpuLayers = init.model.gpuLayers;
    this.#model = init.model;
    this.#contexts = init.contexts;
    this.#maxTokens = init.maxTokens;
    this.#batchSize = init.batchSize;
    this.#normalise = init.normalise;
  }

  static async create(options: LlamaCppEmbedderOptions): Promise<LlamaCppEmbedder> {
    const modelPath = resolve(options.modelPath);
    if (!existsSync(modelPath) || !statSync(modelPath).isFile()) {
      throw new PolyhopError('BAD_INPUT', `Embedding model file not found: ${modelPath}`, { details: { modelPath } });
    }
    const batchSize = options.batchSize ?? 32;
    const parallel = options.contexts ?? 1;
    for (const [name, value] of [
      ['batch size', batchSize],
      ['contexts', parallel],
    ] as const) {
      if (!Number.isInteger(value) || value < 1)
        throw new PolyhopError('BAD_INPUT', `Embedding ${name} must be a positive integer, got ${value}`);
    }

    const { llama } = await getLlamaRuntime(options.gpu ?? 'auto');
    let model: LlamaModel | undefined;
    const contexts: LlamaEmbeddingContext[] = [];
    try {
      throwIfAborted(options.signal);
      model = await loadModel(llama, modelPath, options);
      const contextSize = options.contextSize ?? Math.min(model.trainContextSize, 4096);
      const threads = options.threads ?? llama.cpuMathCores;
      for (let i = 0; i < parallel; i++) {
        contexts.push(await model.createEmbeddingContext({ contextSize, threads, createSignal: options.signal }));
      }

      const detected = detectEmbeddingPrefixes([basename(modelPath), model.fileInfo.metadata.general?.name ?? '']);
      const prefixes = {
        query: options.queryPrefix ?? detected.query,
        passage: options.passagePrefix ?? detected.passage,
      };
      const normalise = options.normalise ?? true;
      const fingerprint = await fileFingerprint(modelPath);
      const identity = `llama.cpp:${basename(modelPath)}:${hashParts([fingerprint, prefixes.query, prefixes.passage, String(normalise)]).slice(0, 12)}`;
      // node-llama-cpp adds BOS/EOS (or CLS/SEP) and needs the whole input below the context size.
      const maxTokens = contextSize - 3;
      const init = { identity, dimension: 0, prefixes, model, contexts, maxTokens, batchSize, normalise };
      const probe = await embedText({ ...init, prefix: '' }, contexts[0] as LlamaEmbeddingContext, 'dimension probe');
      if (probe.length === 0)
        throw new PolyhopError('MODEL_ERROR', `${modelPath} returned an empty embedding`, { details: { modelPath } });
      return new LlamaCppEmbedder({ ...init, dimension: probe.length });
    } catch (cause) {
      for (const context of contexts) await context.dispose();
      await model?.dispose();
      if (cause instanceof PolyhopError) throw cause;
      throw new PolyhopError('MODEL_ERROR', `Cannot use ${modelPath} as an embedding model: ${errorMessage(cause)}`, {
        details: { modelPath },
        cause,
      });
    }
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefixed = applyPrefix(texts, this.prefixes, options.purpose);
    const prefix = applyPrefix([''], this.prefixes, options.purpose)[0] as string;
    const settings = { model: this.#model, maxTokens: this.#maxTokens, normalise: this.#normalise, prefix };
    return embedInBatches(prefixed, this.#batchSize, options.signal, async (batch) => {
      // Each worker owns one context; a context evaluates one text at a time.
      const free = [...this.#contexts];
      return mapConcurrent(batch, free.length, async (text) => {
        const context = free.pop() as LlamaEmbeddingContext;
        try {
          return await embedText(settings, context, text);
        } finally {
          free.push(context);
        }
      });
    });
  }

  async dispose(): Promise<void> {
    for (const context of this.#contexts) await context.dispose();
    await this.#model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

async function loadModel(llama: Llama, modelPath: string, options: LlamaCppEmbedderOptions): Promise<LlamaModel> {
  const requested = options.gpuLayers ?? 'auto';
  const load = (gpuLayers: LlamaCppEmbedderOptions['gpuLayers']) =>
    llama.loadModel({ modelPath, gpuLayers, loadSignal: options.signal });
  try {
    return await load(requested);
  } catch (cause) {
    throwIfAborted(options.signal);
    if (requested === 0 || llama.gpu === false) throw cause;
    // Not enough VRAM (or a broken driver): the CPU is slower but always there.
    return load(0);
  }
}

interface EmbedTextSettings {
  model: LlamaModel;
  maxTokens: number;
  normalise: boolean;
  /** The purpose prefix already on `text`; each window past the first carries it too. */
  prefix: string;
}

/** One text's vector; a text past the context is embedded in windows and pooled (see pooledWindows). */
async function embedText(
  settings: EmbedTextSettings,
  context: LlamaEmbeddingContext,
  text: string,
): Promise<Float32Array> {
  const { model, maxTokens, normalise, prefix } = settings;
  let tokens: Token[] = model.tokenize(text);
  // An empty text has no tokens and node-llama-cpp would return an empty vector; embed BOS alone.
  if (tokens.length === 0) tokens = model.tokens.bos != null ? [model.tokens.bos] : model.tokenize(' ');
  const vectorOf = async (t: readonly Token[]) => {
    const v = Float32Array.from((await context.getEmbeddingFor([...t])).vector);
    return normalise ? l2Normalise(v) : v;
  };
  if (tokens.length <= maxTokens) return vectorOf(tokens);
  const prefixTokens = prefix ? model.tokenize(prefix) : [];
  const body = model.tokenize(text.slice(prefix.length));
  const windows = tokenWindows(body, Math.max(1, maxTokens - prefixTokens.length));
  const vectors: Float32Array[] = [];
  for (const window of windows) vectors.push(await vectorOf([...prefixTokens, ...window]));
  return poolWindowVectors(
    vectors,
    windows.map((w) => w.length),
    normalise,
  );
}
