import { describe, expect, it } from 'vitest';
import { clusteredVectors, useTempKb } from './kbFixtures.js';

/**
 * A filtered vector search (English chunks only) must find what an exact search with the same
 * filter finds, even when the filtered-out rows crowd the query's neighbourhood: with the filter
 * applied after the prefilter, its candidates would be the other language's and the search would
 * come back short.
 */
describe('filtered KNN (englishChunksOnly)', () => {
  const t = useTempKb();
  const dimension = 64;

  it('finds the exact filtered top 10 when non-English chunks are the nearest', () => {
    const { kb } = t;
    kb.vectors.setEmbedder('test-64', dimension);
    const near = clusteredVectors({ dimension, clusters: 3, spread: 0.3, seed: 21 });
    const far = clusteredVectors({ dimension, clusters: 40, spread: 0.9, seed: 22 });
    const doc = (language: string, count: number, at: number): number[] => {
      const d = kb.documents.addDocument({
        path: `/${language}`,
        title: language,
        hash: language,
        mime: 'text/plain',
        size: 1,
        language,
      });
      const texts = Array.from({ length: count }, (_, i) => `${language} ${i}`);
      return kb.documents
        .replaceChunks(
          d.id,
          texts.map((text, ord) => ({
            ord,
            text,
            language,
            startOffset: at + ord,
            endOffset: at + ord + 1,
            page: null,
          })),
        )
        .map((c) => c.id);
    };
    // 2,000 Italian chunks around the queries, 300 English ones mostly elsewhere.
    const italian = doc('it', 2000, 0);
    const english = doc('en', 300, 0);
    kb.vectors.putVectors('chunk', [
      ...italian.map((id) => ({ id, vector: near() })),
      ...english.map((id, i) => ({ id, vector: i % 10 === 0 ? near() : far() })),
    ]);
    const englishIds = new Set(english);
    for (let q = 0; q < 20; q++) {
      const query = near();
      const exact = kb.vectors.knn('chunk', query, 10, { englishChunksOnly: true, exact: true });
      const found = kb.vectors.knn('chunk', query, 10, { englishChunksOnly: true });
      expect(exact).toHaveLength(10);
      expect(found.every((r) => englishIds.has(r.id))).toBe(true);
      expect(found.map((r) => r.id)).toEqual(exact.map((r) => r.id));
    }
  });
});
