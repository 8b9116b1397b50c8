import { cosine, type Embedder } from '../../models/Embedder.js';

/**
 * Cosine similarity of the response's and the references' embeddings (HyP-KGRAG's "SBERT
 * similarity"), the best over the references. Raw cosine, so it can fall below 0.
 */
export async function embeddingSimilarity(
  embedder: Embedder,
  response: string,
  references: readonly string[],
  signal?: AbortSignal,
): Promise<number> {
  if (references.length === 0) return 0;
  const vectors = await embedder.embed(
    [response, ...references],
    signal ? { purpose: 'passage', signal } : { purpose: 'passage' },
  );
  const [r, ...refs] = vectors;
  if (!r) return 0;
  return Math.max(...refs.map((v) => cosine(r, v)));
}
