import type { EmbedOptions, Embedder } from '../../../src-main/engine/models/Embedder.js';
import { normalRandom } from '../../fixtures/tinyBert.js';

/**
 * Another embedder's vectors times a fixed random Gaussian matrix, renormalised. The n-gram test
 * embedder's vectors are sparse counts (a short query fills a few buckets and leaves the rest at
 * exactly 0), so their sign bits carry little and the KB's sign-bit prefilter cannot rank them;
 * a model's embeddings are dense and signed. A random projection keeps cosines (in expectation)
 * and makes every component dense and signed; the sign bits of such vectors are SimHash codes,
 * whose Hamming distance tracks the angle. Real models' embeddings are anisotropic, which this
 * does not model: AnisotropicEmbedder over it does.
 */
export class RotatedEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly #inner: Embedder;
  readonly #matrix: Float32Array;

  constructor(inner: Embedder, seed = 17) {
    this.#inner = inner;
    this.dimension = inner.dimension;
    this.identity = `${inner.identity}-rotated-${seed}`;
    const random = normalRandom(seed);
    this.#matrix = Float32Array.from({ length: this.dimension * this.dimension }, () => random());
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const d = this.dimension;
    return (await this.#inner.embed(texts, options)).map((v) => {
      const out = new Float32Array(d);
      for (let j = 0; j < d; j++) {
        const x = v[j]!;
        if (x === 0) continue;
        const row = j * d;
        for (let i = 0; i < d; i++) out[i]! += x * this.#matrix[row + i]!;
      }
      let norm = 0;
      for (const x of out) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < d; i++) out[i]! /= norm;
      return out;
    });
  }

  async dispose(): Promise<void> {
    await this.#inner.dispose();
  }
}
