import type { EmbedOptions, Embedder } from '../../../src-main/engine/models/Embedder.js';
import { sharedDirection } from '../../support/sharedDirection.js';

/**
 * Another embedder's unit vectors leaning on one fixed direction, renormalised: `lean` is the share
 * of each vector's squared length given to that direction, so inputs with a mean pairwise cosine c
 * come out with about c + (1 − c) · lean, and neighbours keep their order. Over RotatedEmbedder it
 * models what a real e5 vector looks like to the KB's sign-bit prefilter: dense, signed, and
 * anisotropic (multilingual-e5: mean cosine ~0.78, see test/support/sharedDirection.ts); it does
 * not model e5's semantics (neighbours are the inner embedder's). The n-gram vectors of templated
 * bench texts already share some direction (knnRecall with `--lean 0`: mean cosine 0.47 for
 * triples, 0.81 for chunks), so the default 0.58 brings the largest family, triples, to ~0.78.
 */
export class AnisotropicEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  readonly #inner: Embedder;
  readonly #lean: (unit: Float32Array) => Float32Array;

  constructor(inner: Embedder, lean = 0.58, seed = 23) {
    this.#inner = inner;
    this.dimension = inner.dimension;
    this.identity = `${inner.identity}-anisotropic-${lean}-${seed}`;
    this.#lean = sharedDirection(inner.dimension, lean, seed);
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    return (await this.#inner.embed(texts, options)).map(this.#lean);
  }

  async dispose(): Promise<void> {
    await this.#inner.dispose();
  }
}
