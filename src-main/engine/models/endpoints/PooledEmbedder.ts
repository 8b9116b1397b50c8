import { mapConcurrent } from '../../base/concurrency.js';
import type { EmbedOptions, Embedder } from '../Embedder.js';
import type { EndpointConfig, EndpointStatus } from './EndpointConfig.js';
import { EndpointPool, type EndpointPoolOptions } from './EndpointPool.js';
import { OpenAiEmbedder, type OpenAiEmbedderOptions } from './OpenAiEmbedder.js';

export type PooledEmbedderOptions = Omit<EndpointPoolOptions<OpenAiEmbedder>, 'connect'> &
  Omit<OpenAiEmbedderOptions, 'signal'>;

/** The embedding model served by a pool of endpoints: batches spread over them, each retried elsewhere if its endpoint fails. */
export class PooledEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly #pool: EndpointPool<OpenAiEmbedder>;

  private constructor(pool: EndpointPool<OpenAiEmbedder>) {
    this.#pool = pool;
    this.identity = pool.identity;
    this.dimension = pool.sample.dimension;
  }

  static async create(
    configs: readonly EndpointConfig[],
    options: PooledEmbedderOptions = {},
    signal?: AbortSignal,
  ): Promise<PooledEmbedder> {
    const { stallMs, firstByteMs, batchSize, ...poolOptions } = options;
    const embedderOptions = {
      ...(stallMs !== undefined ? { stallMs } : {}),
      ...(firstByteMs !== undefined ? { firstByteMs } : {}),
      ...(batchSize !== undefined ? { batchSize } : {}),
    };
    const pool = await EndpointPool.create<OpenAiEmbedder>(
      configs,
      {
        ...poolOptions,
        connect: (config, s) => OpenAiEmbedder.create(config, { ...embedderOptions, ...(s ? { signal: s } : {}) }),
      },
      signal,
    );
    return new PooledEmbedder(pool);
  }

  status(): EndpointStatus[] {
    return this.#pool.status();
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const size = this.#pool.sample.batchSize;
    const batches: string[][] = [];
    for (let start = 0; start < texts.length; start += size) batches.push(texts.slice(start, start + size));
    const results = await mapConcurrent(
      batches,
      this.#pool.parallelism,
      (batch, _i, signal) =>
        this.#pool.run((embedder, s) => embedder.embed(batch, { ...options, ...(s ? { signal: s } : {}) }), signal),
      options.signal ? { signal: options.signal } : {},
    );
    return results.flat();
  }

  dispose(): Promise<void> {
    return this.#pool.dispose();
  }
}
