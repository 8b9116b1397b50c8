import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import { hashParts } from '../base/hash.js';
import type { EmbedOptions, Embedder } from './Embedder.js';
import { embedInBatches } from './embedders/embedInBatches.js';
import { errorMessage } from './embedders/errorMessage.js';
import { applyPrefix, detectEmbeddingPrefixes, type EmbeddingPrefixes } from './embedders/embeddingPrefixes.js';
import { fileFingerprint } from './embedders/fileFingerprint.js';
import { l2Normalise } from './embedders/l2Normalise.js';
import { poolWindowVectors, tokenWindows } from './embedders/pooledWindows.js';

export type EmbeddingPooling = 'mean' | 'cls';
export type OnnxDevice = 'cpu' | 'cuda' | 'auto';

export interface TransformersEmbedderOptions {
  /** Local folder of an ONNX export: `config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model*.onnx` (or `model*.onnx` at the top). */
  modelDir: string;
  /**
   * How token vectors become one text vector. Default: what the folder says (sentence-transformers
   * `1_Pooling/config.json`), else `cls` for bge models, else `mean`.
   */
  pooling?: EmbeddingPooling;
  /** L2-normalise vectors. Default true (cosine = dot product; the KB relies on it). */
  normalise?: boolean;
  /** Put before queries. Default: recognised from the model name (e5: `query: `), else none. */
  queryPrefix?: string;
  /** Put before passages. Default: recognised from the model name (e5: `passage: `), else none. */
  passagePrefix?: string;
  /** Texts per forward pass. Default 32. */
  batchSize?: number;
  /**
   * Where ONNX Runtime runs. `auto` (default) takes CUDA when onnxruntime-node's CUDA provider is
   * installed and starts, else the CPU; `cuda` fails with UNSUPPORTED when it cannot.
   */
  device?: OnnxDevice;
  /** Intra-op CPU threads. Default: ONNX Runtime's (one per physical core). */
  threads?: number;
  signal?: AbortSignal;
}

/** Weight files transformers.js can load, in the order we prefer them (full precision first). */
const MODEL_FILES = [
  { file: 'model.onnx', dtype: 'fp32' },
  { file: 'model_quantized.onnx', dtype: 'q8' },
  { file: 'model_fp16.onnx', dtype: 'fp16' },
  { file: 'model_int8.onnx', dtype: 'int8' },
  { file: 'model_uint8.onnx', dtype: 'uint8' },
  { file: 'model_q4.onnx', dtype: 'q4' },
] as const;

type ModelFile = { subfolder: 'onnx' | ''; path: string; dtype: (typeof MODEL_FILES)[number]['dtype'] };

/**
 * Embeddings with @huggingface/transformers (ONNX Runtime) from a local folder. Never touches the
 * network: remote models are disabled library-wide and every load passes `local_files_only`.
 */
export class TransformersEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  /** Where the session runs after `auto` was resolved. */
  readonly device: 'cpu' | 'cuda';
  readonly pooling: EmbeddingPooling;
  readonly prefixes: Readonly<EmbeddingPrefixes>;
  /** The weight file in use. */
  readonly modelFile: string;
  readonly #session: OnnxSession;
  readonly #batchSize: number;
  readonly #normalise: boolean;

  private constructor(init: {
    identity: string;
    dimension: number;
    device: 'cpu' | 'cuda';
    pooling: EmbeddingPooling;
    prefixes: EmbeddingPrefixes;
    session: OnnxSession;
    batchSize: number;
    normalise: boolean;
  }) {
    this.identity = init.identity;
    this.dimension = init.dimension;
    this.device = init.device;
    this.pooling = init.pooling;
    this.prefixes = init.prefixes;
    this.modelFile = init.session.modelFile;
    this.#session = init.session;
    this.#batchSize = init.batchSize;
    this.#normalise = init.normalise;
  }

  static async create(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const modelDir = resolve(options.modelDir);
    const modelFile = checkModelFolder(modelDir);
    const config = readJson(join(modelDir, 'config.json'));
    const batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new PolyhopError('BAD_INPUT', `Embedding batch size must be a positive integer, got ${batchSize}`);

    const { AutoModel, AutoTokenizer, env } = await import('@huggingface/transformers');
    // Library-wide: no download may happen behind the user's back, and nothing is cached
    // (local files are read in place). An absolute path is never a hub id, so transformers.js
    // reads it straight from disk and `env.localModelPath` (process-global) stays untouched.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.useFSCache = false;
    env.useBrowserCache = false;
    throwIfAborted(options.signal);

    const tokenizer = await AutoTokenizer.from_pretrained(modelDir, { local_files_only: true }).catch(
      (cause: unknown) => {
        throw new PolyhopError('BAD_INPUT', `Cannot read the tokenizer of ${modelDir}: ${errorMessage(cause)}`, {
          details: { modelDir },
          cause,
        });
      },
    );
    const load = (device: 'cpu' | 'cuda') =>
      AutoModel.from_pretrained(modelDir, {
        local_files_only: true,
        subfolder: modelFile.subfolder,
        dtype: modelFile.dtype,
        device,
        session_options: options.threads ? { intraOpNumThreads: options.threads, interOpNumThreads: 1 } : {},
      });
    const { model, device } = await loadOnDevice(options.device ?? 'auto', modelDir, load);
    throwIfAborted(options.signal);

    const pooling = options.pooling ?? defaultPooling(modelDir, config);
    const detected = detectEmbeddingPrefixes([basename(modelDir), String(config._name_or_path ?? '')]);
    const prefixes = {
      query: options.queryPrefix ?? detected.query,
      passage: options.passagePrefix ?? detected.passage,
    };
    const normalise = options.normalise ?? true;
    const fingerprint = await fileFingerprint(modelFile.path);
    const hash = hashParts([
      fingerprint,
      basename(modelFile.path),
      prefixes.query,
      prefixes.passage,
      String(normalise),
    ]);
    const identity = `transformers:${basename(modelDir)}:${pooling}:${hash.slice(0, 12)}`;

    const session: OnnxSession = {
      tokenizer,
      model,
      modelFile: modelFile.path,
      window: modelWindow(tokenizer, config),
    };
    try {
      const [probe] = await encode(session, ['dimension probe'], pooling, normalise);
      return new TransformersEmbedder({
        identity,
        dimension: probe?.length ?? 0,
        device,
        pooling,
        prefixes,
        session,
        batchSize,
        normalise,
      });
    } catch (cause) {
      await model.dispose();
      throw cause instanceof PolyhopError
        ? cause
        : new PolyhopError('MODEL_ERROR', `The ONNX model in ${modelDir} failed to run: ${errorMessage(cause)}`, {
            details: { modelDir },
            cause,
          });
    }
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefix = applyPrefix([''], this.prefixes, options.purpose)[0] as string;
    const pieces = splitToWindow(this.#session, applyPrefix(texts, this.prefixes, options.purpose), prefix);
    // Batching texts of similar length wastes less work on padding; results go back in input order.
    const order = pieces.texts
      .map((_, i) => i)
      .sort((a, b) => (pieces.texts[a] as string).length - (pieces.texts[b] as string).length);
    const sorted = order.map((i) => pieces.texts[i] as string);
    const vectors = await embedInBatches(sorted, this.#batchSize, options.signal, (batch) =>
      encode(this.#session, batch, this.pooling, this.#normalise),
    );
    const byPiece = new Array<Float32Array>(pieces.texts.length);
    order.forEach((original, k) => (byPiece[original] = vectors[k] as Float32Array));
    return texts.map((_, i) => {
      const mine = pieces.owners.flatMap((owner, k) => (owner === i ? [k] : []));
      return poolWindowVectors(
        mine.map((k) => byPiece[k] as Float32Array),
        mine.map((k) => pieces.weights[k] as number),
        this.#normalise,
      );
    });
  }

  async dispose(): Promise<void> {
    await this.#session.model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

interface OnnxSession {
  tokenizer: PreTrainedTokenizer;
  model: PreTrainedModel;
  modelFile: string;
  /** Tokens the model takes in one text, special tokens included. */
  window: number;
}

/** The model's window: the tokenizer's limit, bounded by the position embeddings (some tokenizers say 1e30). */
function modelWindow(tokenizer: PreTrainedTokenizer, config: Record<string, unknown>): number {
  const limits = [Number(tokenizer.model_max_length), Number(config.max_position_embeddings)].filter(
    (n) => Number.isFinite(n) && n > 0 && n < 1e6,
  );
  return limits.length > 0 ? Math.min(...limits) : 512;
}

/**
 * Each text as pieces the model takes whole: itself when it fits, else its token windows decoded
 * back to text, each with the purpose prefix, weighted by their tokens (see pooledWindows).
 */
function splitToWindow(
  session: OnnxSession,
  texts: readonly string[],
  prefix: string,
): { texts: string[]; owners: number[]; weights: number[] } {
  const { tokenizer, window } = session;
  const out = { texts: [] as string[], owners: [] as number[], weights: [] as number[] };
  // Room for the special tokens, the prefix, and a re-tokenised window a few tokens longer than it was.
  const room = Math.max(
    1,
    window - tokenizer.encode('').length - tokenizer.encode(prefix, { add_special_tokens: false }).length - 8,
  );
  texts.forEach((text, owner) => {
    const length = tokenizer.encode(text).length;
    if (length <= window) {
      out.texts.push(text);
      out.owners.push(owner);
      out.weights.push(length);
      return;
    }
    for (const ids of tokenWindows(tokenizer.encode(text.slice(prefix.length), { add_special_tokens: false }), room)) {
      out.texts.push(prefix + tokenizer.decode(ids, { skip_special_tokens: true }));
      out.owners.push(owner);
      out.weights.push(ids.length);
    }
  });
  return out;
}

/** Tokenises, runs the model and pools each text's token vectors (padding excluded by the mask). */
async function encode(
  session: OnnxSession,
  texts: readonly string[],
  pooling: EmbeddingPooling,
  normalise: boolean,
): Promise<Float32Array[]> {
  const inputs = session.tokenizer([...texts], { padding: true, truncation: true });
  const outputs = (await session.model(inputs)) as Record<string, Tensor | undefined>;
  const hidden = outputs.last_hidden_state;
  if (!hidden || hidden.dims.length !== 3) {
    throw new PolyhopError(
      'BAD_INPUT',
      `${session.modelFile} has no last_hidden_state [batch, tokens, dim] output (found: ${Object.keys(outputs).join(', ')})`,
      {
        details: { modelFile: session.modelFile },
      },
    );
  }
  const [batch, tokens, dim] = hidden.dims as [number, number, number];
  const data = hidden.data as Float32Array;
  const mask = (inputs.attention_mask as Tensor).data as BigInt64Array;
  const vectors: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    if (pooling === 'cls') {
      v.set(data.subarray(b * tokens * dim, b * tokens * dim + dim));
    } else {
      let count = 0;
      for (let t = 0; t < tokens; t++) {
        if (mask[b * tokens + t] === 0n) continue;
        count++;
        const row = (b * tokens + t) * dim;
        for (let k = 0; k < dim; k++) v[k] = (v[k] as number) + (data[row + k] as number);
      }
      for (let k = 0; k < dim; k++) v[k] = (v[k] as number) / Math.max(count, 1);
    }
    vectors.push(normalise ? l2Normalise(v) : v);
  }
  return vectors;
}

/** Checks the folder before transformers.js does, so the error names every missing file at once. */
function checkModelFolder(modelDir: string): ModelFile {
  if (!existsSync(modelDir) || !statSync(modelDir).isDirectory()) {
    throw new PolyhopError('BAD_INPUT', `Embedding model folder not found: ${modelDir}`, { details: { modelDir } });
  }
  const missing = ['config.json', 'tokenizer.json', 'tokenizer_config.json'].filter(
    (f) => !existsSync(join(modelDir, f)),
  );
  let weights: ModelFile | undefined;
  for (const subfolder of ['onnx', ''] as const) {
    const found = MODEL_FILES.find(({ file }) => existsSync(join(modelDir, subfolder, file)));
    if (found) {
      weights = { subfolder, path: join(modelDir, subfolder, found.file), dtype: found.dtype };
      break;
    }
  }
  if (!weights) missing.push('onnx/model.onnx (or model_quantized.onnx, model_fp16.onnx, …)');
  if (missing.length > 0 || !weights) {
    throw new PolyhopError('BAD_INPUT', `Embedding model folder ${modelDir} is missing ${missing.join(', ')}`, {
      details: { modelDir, missing },
    });
  }
  return weights;
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (cause) {
    throw new PolyhopError('BAD_INPUT', `Cannot parse ${path}: ${errorMessage(cause)}`, { details: { path }, cause });
  }
}

function defaultPooling(modelDir: string, config: Record<string, unknown>): EmbeddingPooling {
  const poolingConfig = join(modelDir, '1_Pooling', 'config.json');
  if (existsSync(poolingConfig)) {
    const p = readJson(poolingConfig);
    if (p.pooling_mode_cls_token === true) return 'cls';
    if (p.pooling_mode_mean_tokens === true) return 'mean';
  }
  const name = `${basename(modelDir)} ${String(config._name_or_path ?? '')}`.toLowerCase();
  return name.includes('bge') ? 'cls' : 'mean';
}

/** onnxruntime-node ships the CPU provider only; the CUDA one is an optional add-on next to its binding. */
function onnxCudaProviderInstalled(): boolean {
  if (process.platform !== 'linux' || process.arch !== 'x64') return false;
  try {
    const entry = createRequire(import.meta.url).resolve('onnxruntime-node');
    return existsSync(join(dirname(entry), '..', 'bin', 'napi-v6', 'linux', 'x64', 'libonnxruntime_providers_cuda.so'));
  } catch {
    return false;
  }
}

async function loadOnDevice(
  requested: OnnxDevice,
  modelDir: string,
  load: (device: 'cpu' | 'cuda') => Promise<PreTrainedModel>,
): Promise<{ model: PreTrainedModel; device: 'cpu' | 'cuda' }> {
  const fail = (cause: unknown) =>
    new PolyhopError('MODEL_ERROR', `Cannot load the ONNX model in ${modelDir}: ${errorMessage(cause)}`, {
      details: { modelDir },
      cause,
    });
  if (requested !== 'cpu' && onnxCudaProviderInstalled()) {
    try {
      return { model: await load('cuda'), device: 'cuda' };
    } catch (cause) {
      if (requested === 'cuda') throw fail(cause);
      // auto: no usable GPU/driver behind the installed provider; the CPU always works.
    }
  } else if (requested === 'cuda') {
    throw new PolyhopError(
      'UNSUPPORTED',
      `ONNX Runtime's CUDA provider is not installed (onnxruntime-node add-on), so ${modelDir} cannot run on CUDA`,
      {
        details: { modelDir },
      },
    );
  }
  try {
    return { model: await load('cpu'), device: 'cpu' };
  } catch (cause) {
    throw fail(cause);
  }
}
