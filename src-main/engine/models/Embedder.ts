/** Queries and passages are embedded differently by some models (e5: `query:` / `passage:`). */
export type EmbedPurpose = 'query' | 'passage';

export interface EmbedOptions {
  /** Default: 'passage'. */
  purpose?: EmbedPurpose;
  signal?: AbortSignal;
}

/** Text → L2-normalised vectors. Implementations: TransformersEmbedder (ONNX), LlamaCppEmbedder (GGUF). */
export interface Embedder {
  /** Stable identity (backend + model + pooling); a KB records it and refuses another. */
  readonly identity: string;
  readonly dimension: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
