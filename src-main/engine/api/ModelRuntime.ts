import { existsSync, statSync } from 'node:fs';
import { PolyhopError } from '../base/errors.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm } from '../models/Llm.js';
// The runtimes are imported when a model is first loaded: node-llama-cpp and transformers.js take
// seconds to import, which every CLI command and engine start would otherwise pay.
import type { LlamaCppLlm } from '../models/LlamaCppLlm.js';
import type { LlamaCppEmbedder } from '../models/LlamaCppEmbedder.js';
import type { TransformersEmbedder } from '../models/TransformersEmbedder.js';
import type { EndpointConfig, EndpointRole, EndpointStatus } from '../models/endpoints/EndpointConfig.js';
import type { PooledEmbedder } from '../models/endpoints/PooledEmbedder.js';
import type { PooledLlm } from '../models/endpoints/PooledLlm.js';
import type { EndpointNotice } from '../models/endpoints/EndpointPool.js';
import type { ModelSelection, ModelStatus } from './contract.js';
import type { SettingsStore } from './SettingsStore.js';
import { largestContextNeed } from '../qa/contextNeed.js';
import { resolveQaSettings } from '../qa/settings.js';

export type ModelRole = 'generation' | 'embedding';

/** Models given by the host instead of the user's selection (tests and embedding programs). */
export interface InjectedModels {
  llm?: Llm;
  embedder?: Embedder;
}

/** A pool over the endpoints of one role, with the settings it was made from. */
interface PoolEntry<P> {
  key: string;
  pool: P;
}

/**
 * The generation model and the embedder the engine uses. The user's selection lives in
 * settings, so every front door (and every CLI run) loads the same models; they load lazily
 * on first use and stay loaded. When settings list endpoints (OpenAI-compatible servers) for a
 * role, a pool over them serves that role instead of the local model; a change to them takes
 * effect at the next call, and the old pool is closed.
 */
export class ModelRuntime {
  readonly #settings: SettingsStore;
  readonly #injected: InjectedModels;
  #llm: { selection: string; model: LlamaCppLlm } | null = null;
  #embedder: { selection: string; model: Embedder; status: ModelStatus } | null = null;
  #loading = new Map<ModelRole, Promise<unknown>>();
  #llmPool: PoolEntry<PooledLlm> | null = null;
  #embedderPool: PoolEntry<PooledEmbedder> | null = null;
  #poolLoading = new Map<string, Promise<unknown>>();
  readonly #onNotice: ((notice: EndpointNotice) => void) | undefined;

  /** `onNotice`: told when an endpoint makes calls wait (busy, loading), for the front doors to show. */
  constructor(settings: SettingsStore, injected: InjectedModels = {}, onNotice?: (notice: EndpointNotice) => void) {
    this.#settings = settings;
    this.#injected = injected;
    this.#onNotice = onNotice;
  }

  /** The generation model, or null when none is selected (retrieval-only answers still work). */
  async generation(): Promise<Llm | null> {
    if (this.#injected.llm) return this.#injected.llm;
    const endpoints = this.#endpoints('generation');
    if (endpoints.length > 0) return this.#generationPool(endpoints);
    await this.#closePool('generation');
    const selection = this.#settings.get().generationModel;
    if (!selection) return null;
    return this.#loadGeneration(selection);
  }

  async requireGeneration(purpose: string): Promise<Llm> {
    const llm = await this.generation();
    if (!llm)
      throw new PolyhopError(
        'MODEL_ERROR',
        `${purpose} needs a generation model: put a GGUF file in models/ and select it (Models screen, or \`polyhop models use generation FILE\`)`,
      );
    return llm;
  }

  async embedder(): Promise<Embedder | null> {
    if (this.#injected.embedder) return this.#injected.embedder;
    const endpoints = this.#endpoints('embedding');
    if (endpoints.length > 0) return this.#embeddingPool(endpoints);
    await this.#closePool('embedding');
    const selection = this.#settings.get().embeddingModel;
    if (!selection) return null;
    return this.#loadEmbedder(selection);
  }

  async requireEmbedder(purpose: string): Promise<Embedder> {
    const embedder = await this.embedder();
    if (!embedder)
      throw new PolyhopError(
        'MODEL_ERROR',
        `${purpose} needs an embedding model: put an ONNX folder or GGUF embedding model in models/ ` +
          'and select it (Models screen, or `polyhop models use embedding PATH`)',
      );
    return embedder;
  }

  /** Loads a model, and on success remembers it as the user's selection for that role. */
  async load(role: ModelRole, selection: ModelSelection): Promise<ModelStatus> {
    if (!existsSync(selection.path))
      throw new PolyhopError('NOT_FOUND', `No model at ${selection.path}`, { details: { file: selection.path } });
    if (role === 'generation') {
      const model = await this.#loadGeneration(selection);
      this.#settings.update({ generationModel: selection });
      return model.status();
    }
    await this.#loadEmbedder(selection);
    this.#settings.update({ embeddingModel: selection });
    return (this.#embedder as { status: ModelStatus }).status;
  }

  async unload(role: ModelRole): Promise<boolean> {
    if (role === 'generation') {
      const had = this.#llm !== null;
      await this.#llm?.model.dispose();
      this.#llm = null;
      this.#settings.update({ generationModel: null });
      return had;
    }
    const had = this.#embedder !== null;
    await this.#embedder?.model.dispose();
    this.#embedder = null;
    this.#settings.update({ embeddingModel: null });
    return had;
  }

  status(): { generation: ModelStatus | null; embedding: ModelStatus | null } {
    return { generation: this.#llm?.model.status() ?? null, embedding: this.#embedder?.status ?? null };
  }

  /**
   * Every configured endpoint: live health, calls and served model from its pool once the pool
   * exists (the role was used since the endpoints last changed), else `health: 'unknown'`.
   */
  endpointStatus(): EndpointStatus[] {
    const live = new Map<string, EndpointStatus>();
    for (const entry of [this.#llmPool, this.#embedderPool])
      for (const s of entry?.pool.status() ?? []) live.set(`${s.role}/${s.id}`, s);
    return this.#settings.get().endpoints.map((e) => {
      const current = live.get(`${e.role}/${e.id}`);
      if (
        current &&
        current.baseUrl === e.baseUrl &&
        current.model === e.model &&
        current.concurrency === e.concurrency
      )
        return current;
      return {
        id: e.id,
        role: e.role,
        baseUrl: e.baseUrl,
        model: e.model,
        hasApiKey: e.apiKey !== undefined,
        concurrency: e.concurrency,
        health: 'unknown',
        servedModel: null,
        inFlight: 0,
        calls: 0,
        failures: 0,
        lastError: null,
      };
    });
  }

  async dispose(): Promise<void> {
    await this.#llm?.model.dispose();
    await this.#embedder?.model.dispose();
    this.#llm = null;
    this.#embedder = null;
    await this.#closePool('generation');
    await this.#closePool('embedding');
  }

  #endpoints(role: EndpointRole): EndpointConfig[] {
    return this.#settings.get().endpoints.filter((e) => e.role === role);
  }

  async #generationPool(endpoints: EndpointConfig[]): Promise<PooledLlm> {
    const key = JSON.stringify(endpoints);
    if (this.#llmPool?.key === key) return this.#llmPool.pool;
    return this.#oncePool(`generation ${key}`, async () => {
      const { PooledLlm } = await import('../models/endpoints/PooledLlm.js');
      const contextNeed = this.#contextNeed();
      const pool = await PooledLlm.create(endpoints, {
        ...(contextNeed ? { contextNeed } : {}),
        ...this.#noticeOption(),
      });
      await this.#closePool('generation');
      this.#llmPool = { key, pool };
      return pool;
    });
  }

  async #embeddingPool(endpoints: EndpointConfig[]): Promise<PooledEmbedder> {
    const key = JSON.stringify(endpoints);
    if (this.#embedderPool?.key === key) return this.#embedderPool.pool;
    return this.#oncePool(`embedding ${key}`, async () => {
      const { PooledEmbedder } = await import('../models/endpoints/PooledEmbedder.js');
      const pool = await PooledEmbedder.create(endpoints, this.#noticeOption());
      await this.#closePool('embedding');
      this.#embedderPool = { key, pool };
      return pool;
    });
  }

  #noticeOption(): { onNotice?: (notice: EndpointNotice) => void } {
    return this.#onNotice ? { onNotice: this.#onNotice } : {};
  }

  async #closePool(role: EndpointRole): Promise<void> {
    const entry = role === 'generation' ? this.#llmPool : this.#embedderPool;
    if (role === 'generation') this.#llmPool = null;
    else this.#embedderPool = null;
    await entry?.pool.dispose();
  }

  /** One pool made per endpoint list at a time: concurrent callers share it. */
  async #oncePool<T>(key: string, make: () => Promise<T>): Promise<T> {
    const pending = this.#poolLoading.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const promise = make().finally(() => this.#poolLoading.delete(key));
    this.#poolLoading.set(key, promise);
    return promise;
  }

  async #loadGeneration(selection: ModelSelection): Promise<LlamaCppLlm> {
    const key = JSON.stringify(selection);
    if (this.#llm?.selection === key) return this.#llm.model;
    return this.#once('generation', async () => {
      const model = await createGeneration(selection, this.#contextNeed());
      await this.#llm?.model.dispose();
      this.#llm = { selection: key, model };
      return model;
    });
  }

  async #loadEmbedder(selection: ModelSelection): Promise<Embedder> {
    const key = JSON.stringify(selection);
    if (this.#embedder?.selection === key) return this.#embedder.model;
    return this.#once('embedding', async () => {
      const { model, status } = await createEmbedder(selection);
      await this.#embedder?.model.dispose();
      this.#embedder = { selection: key, model, status };
      return model;
    });
  }

  /**
   * A model loaded apart from the engine's own, e.g. a benchmark's judge or similarity model
   * (which must not replace the model under test); the caller disposes it.
   */
  async loadSeparate(role: 'generation', selection: ModelSelection): Promise<Llm>;
  async loadSeparate(role: 'embedding', selection: ModelSelection): Promise<Embedder>;
  async loadSeparate(role: ModelRole, selection: ModelSelection): Promise<Llm | Embedder> {
    if (!existsSync(selection.path))
      throw new PolyhopError('NOT_FOUND', `${selection.path}: no such model file or folder`, {
        details: { file: selection.path },
      });
    return role === 'generation' ? createGeneration(selection) : (await createEmbedder(selection)).model;
  }

  /**
   * Context per sequence the answering prompts need for their evidence with the saved strategy parameters
   * (none when they are invalid: answering refuses them anyway).
   */
  #contextNeed(): ((reasons: boolean) => number) | undefined {
    try {
      const settings = resolveQaSettings(this.#settings.get().strategyParams);
      return (reasons) => largestContextNeed(settings, reasons);
    } catch {
      return undefined;
    }
  }

  /** One load per role at a time: concurrent callers share it. */
  async #once<T>(role: ModelRole, load: () => Promise<T>): Promise<T> {
    const pending = this.#loading.get(role) as Promise<T> | undefined;
    if (pending) return pending;
    const promise = load().finally(() => this.#loading.delete(role));
    this.#loading.set(role, promise);
    return promise;
  }
}

async function createGeneration(
  selection: ModelSelection,
  contextNeed?: (reasons: boolean) => number,
): Promise<LlamaCppLlm> {
  const { LlamaCppLlm } = await import('../models/LlamaCppLlm.js');
  return LlamaCppLlm.create({ ...selection, ...(contextNeed ? { contextNeed } : {}) });
}

async function createEmbedder(selection: ModelSelection): Promise<{ model: Embedder; status: ModelStatus }> {
  const isFolder = statSync(selection.path).isDirectory();
  const { TransformersEmbedder } = await import('../models/TransformersEmbedder.js');
  const { LlamaCppEmbedder } = await import('../models/LlamaCppEmbedder.js');
  const model: Embedder = isFolder
    ? await TransformersEmbedder.create({
        modelDir: selection.path,
        ...(selection.batchSize ? { batchSize: selection.batchSize } : {}),
        ...(selection.threads ? { threads: selection.threads } : {}),
      })
    : await LlamaCppEmbedder.create({
        modelPath: selection.path,
        gpuLayers: selection.gpuLayers,
        ...(selection.threads ? { threads: selection.threads } : {}),
        ...(selection.contextSize ? { contextSize: selection.contextSize } : {}),
        ...(selection.batchSize ? { batchSize: selection.batchSize } : {}),
      });
  const status: ModelStatus = {
    role: 'embedding',
    path: selection.path,
    identity: model.identity,
    backend: isFolder ? `onnxruntime (${(model as TransformersEmbedder).device})` : 'llama.cpp',
    gpuLayers: isFolder ? 0 : (model as LlamaCppEmbedder).gpuLayers,
    totalLayers: 0,
    dimension: model.dimension,
    explanation: isFolder
      ? 'ONNX model run by @huggingface/transformers from local files only'
      : 'GGUF embedding model run by node-llama-cpp',
  };
  return { model, status };
}
