import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import type { ScoredId } from '../../../src-main/engine/kb/types.js';

interface Logged {
  stage: string;
  /** The exact search on the same query, run when the report is made (outside any timing). */
  exact: () => ScoredId[][];
  approximate: ScoredId[][];
}

/**
 * Records every approximate search the KB answers while `recording` (vector KNN through the
 * sign-bit prefilter, BM25 with common terms pruned) and reports recall@10 of each stage against
 * the exact search on the same queries: top-10 ids of the exact search found in the approximate
 * top 10 (or top k, when fewer were asked).
 */
export class ApproximateSearchLog {
  recording = false;
  readonly #logged: Logged[] = [];

  constructor(kb: KnowledgeBase) {
    const vectors = kb.vectors;
    const knnOfEach = vectors.knnOfEach.bind(vectors);
    vectors.knnOfEach = (kind, queries, k, options = {}) => {
      const result = knnOfEach(kind, queries, k, options);
      if (this.recording && !options.exact) {
        const copies = queries.map((q) => Float32Array.from(q));
        const stage = `knn ${kind}${options.englishChunksOnly ? ' (English chunks)' : ''}`;
        this.#logged.push({
          stage,
          approximate: result,
          exact: () => knnOfEach(kind, copies, k, { ...options, exact: true }),
        });
      }
      return result;
    };
    const text = kb.textIndex;
    const bm25 = text.bm25.bind(text);
    text.bm25 = (kind, query, k, options = {}) => {
      const result = bm25(kind, query, k, options);
      if (this.recording && !options.exact)
        this.#logged.push({
          stage: `bm25 ${kind}`,
          approximate: [result],
          exact: () => [bm25(kind, query, k, { exact: true })],
        });
      return result;
    };
  }

  /** One line per stage: searches, mean recall@10, worst search. */
  recallReport(): string[] {
    const stages = new Map<string, number[]>();
    for (const entry of this.#logged) {
      const exact = entry.exact();
      entry.approximate.forEach((approximate, i) => {
        const truth = exact[i]!.slice(0, 10).map((r) => r.id);
        if (truth.length === 0) return;
        const found = new Set(approximate.slice(0, 10).map((r) => r.id));
        const recall = truth.filter((id) => found.has(id)).length / truth.length;
        stages.set(entry.stage, [...(stages.get(entry.stage) ?? []), recall]);
      });
    }
    return [...stages].map(([stage, recalls]) => {
      const mean = recalls.reduce((a, b) => a + b, 0) / recalls.length;
      return `${stage.padEnd(34)} ${String(recalls.length).padStart(5)} searches  recall@10 ${mean.toFixed(3)}  worst ${Math.min(...recalls).toFixed(2)}`;
    });
  }
}
