import type { EmbedOptions, Embedder } from '../../../../src-main/engine/models/Embedder.js';
import { NgramEmbedder } from '../../../support/NgramEmbedder.js';
import { seededRandom } from '../../../support/seededRandom.js';

/** Options of {@link CrowdedEmbedder}. */
export interface CrowdedEmbedderOptions {
  /**
   * Groups of words that mean one thing (a person in four languages, a topic's vocabulary): texts
   * naming members of one group share its direction. Default: none.
   */
  concepts?: readonly (readonly string[])[];
  /** Weight of a concept against the text's own trigrams. Default: 0.65 (≈ 0.8 for two names of one person at the default crowding). */
  conceptWeight?: number;
  /** Share of every vector on one common direction, as multilingual-e5 puts all texts in a narrow cone. Default: 0.72. */
  crowding?: number;
}

/**
 * Test double of a semantic embedder with the similarity scale of multilingual-e5: every pair of
 * texts is at least `crowding` similar (unrelated names ≈ 0.72–0.80), two names of one thing in
 * other languages ≈ 0.8 (not 0.98), spelling variants higher through shared trigrams. What a
 * text means comes from the `concepts` it mentions plus its character trigrams (NgramEmbedder),
 * so nothing is decided by the double: the thresholds and the LLM have to do the work.
 */
export class CrowdedEmbedder implements Embedder {
  readonly identity: string;
  readonly dimension = 256;
  readonly #ngrams = new NgramEmbedder(256);
  readonly #concepts: { words: RegExp; direction: Float32Array }[];
  readonly #weight: number;
  readonly #crowding: number;
  readonly #common: Float32Array;

  constructor(options: CrowdedEmbedderOptions = {}) {
    this.#weight = options.conceptWeight ?? 0.65;
    this.#crowding = options.crowding ?? 0.72;
    this.identity = `test-crowded-${this.#crowding}-${this.#weight}`;
    this.#common = direction(this.dimension, 1);
    this.#concepts = (options.concepts ?? []).map((words, i) => ({
      words: new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escape).join('|')})(?![\\p{L}\\p{N}])`, 'iu'),
      direction: direction(this.dimension, i + 2),
    }));
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const own = await this.#ngrams.embed(texts, options);
    return texts.map((text, i) => {
      const meaning = Float32Array.from(own[i]!);
      for (const c of this.#concepts)
        if (c.words.test(text)) meaning.forEach((_, j) => (meaning[j]! += this.#weight * c.direction[j]!));
      const m = unit(meaning);
      const a = Math.sqrt(this.#crowding);
      const b = Math.sqrt(1 - this.#crowding);
      return unit(m.map((x, j) => a * this.#common[j]! + b * x));
    });
  }

  async dispose(): Promise<void> {}
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A fixed pseudo-random unit direction (the engine's mulberry32 on `seed`). */
function direction(dimension: number, seed: number): Float32Array {
  const random = seededRandom(seed * 0x9e3779b9);
  return unit(Float32Array.from({ length: dimension }, () => random() - 0.5));
}

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
