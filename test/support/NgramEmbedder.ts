import type { EmbedOptions, Embedder } from '../../src-main/engine/models/Embedder.js';

/**
 * Deterministic test double of an embedder: hashed character trigrams, L2-normalised. Similar
 * strings get similar vectors, so retrieval and disambiguation logic can be asserted exactly
 * without a model. Lives under test/ only.
 */
export class NgramEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension: number;
  calls = 0;

  constructor(dimension = 256) {
    this.dimension = dimension;
    this.identity = `test-ngram-${dimension}`;
  }

  async embed(texts: readonly string[], _options: EmbedOptions = {}): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((t) => this.#vector(t));
  }

  async dispose(): Promise<void> {}

  #vector(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const s = ` ${text.toLowerCase().normalize('NFKC')} `;
    const chars = [...s];
    for (let i = 0; i + 2 < chars.length; i++) {
      const gram = chars[i]! + chars[i + 1]! + chars[i + 2]!;
      let h = 2166136261;
      for (let j = 0; j < gram.length; j++) h = Math.imul(h ^ gram.charCodeAt(j), 16777619);
      v[(h >>> 0) % this.dimension]! += 1;
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  }
}

/**
 * `inner`'s vectors, except that a text `anchorOf` maps to another embeds next to that one (its
 * vector plus 0.15 of the text's own, normalised), as a semantic embedder puts an
 * alias next to its name; a text it maps to null keeps its own vector.
 */
export async function embedNearAnchors(
  inner: Embedder,
  texts: readonly string[],
  options: EmbedOptions,
  anchorOf: (text: string) => string | null,
): Promise<Float32Array[]> {
  const anchored = texts.map(anchorOf);
  const own = await inner.embed(texts, options);
  const anchors = await inner.embed(
    texts.map((t, i) => anchored[i] ?? t),
    options,
  );
  return own.map((v, i) => {
    if (anchored[i] === null) return v;
    const mixed = anchors[i]!.map((x, j) => x + 0.15 * v[j]!);
    const norm = Math.hypot(...mixed);
    return mixed.map((x) => x / norm);
  });
}
