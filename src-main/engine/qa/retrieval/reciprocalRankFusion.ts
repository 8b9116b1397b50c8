import type { ScoredId } from '../../kb/types.js';

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): score(d) = Σ 1 / (k + rank_i(d)),
 * ranks 1-based. Only ranks count, so cosine similarities and BM25 scores need no calibration.
 * Ties keep the order of first appearance; the result is sorted best first.
 *
 * @example reciprocalRankFusion([dense, sparse], 60).slice(0, 10)
 */
export function reciprocalRankFusion(lists: readonly (readonly ScoredId[])[], k = 60): ScoredId[] {
  const fused = new Map<number, number>();
  for (const list of lists) {
    const seen = new Set<number>();
    let rank = 0;
    for (const { id } of list) {
      if (seen.has(id)) continue; // a list naming an id twice counts it once, at its best rank
      seen.add(id);
      rank++;
      fused.set(id, (fused.get(id) ?? 0) + 1 / (k + rank));
    }
  }
  return [...fused].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
