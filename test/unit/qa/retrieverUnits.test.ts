import { describe, expect, it } from 'vitest';
import type { EmbedOptions, Embedder } from '../../../src-main/engine/models/Embedder.js';
import {
  Retriever,
  spellingSimilarity,
  withoutParenthetical,
} from '../../../src-main/engine/qa/retrieval/Retriever.js';
import type { QaKb } from '../../../src-main/engine/qa/types.js';

/** An embedder that records what it was asked (one-dimensional vectors: only the calls matter here). */
class RecordingEmbedder implements Embedder {
  readonly identity = 'recording';
  readonly dimension = 1;
  readonly calls: { texts: readonly string[]; purpose: EmbedOptions['purpose'] }[] = [];
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    this.calls.push({ texts, purpose: options?.purpose });
    return Promise.resolve(texts.map(() => new Float32Array([1])));
  }
  dispose(): Promise<void> {
    return Promise.resolve();
  }
}

describe('Retriever helpers', () => {
  it('strips a trailing "(…)" from a value written with spaces around it', () => {
    expect(withoutParenthetical(' Penelope (queen of Ithaca) ')).toBe('Penelope');
    expect(withoutParenthetical('Penelope')).toBeNull();
  });

  it('counts a repeated trigram as often as it occurs', () => {
    // " anna anna " has 9 trigrams (four of them twice), " anna " 4: Dice 2·4 / 13.
    expect(spellingSimilarity('Anna Anna', 'Anna')).toBeCloseTo(8 / 13, 10);
  });

  it('embeds query texts once each, as queries, and embeds nothing for a search of k 0', async () => {
    const embedder = new RecordingEmbedder();
    const knn: number[] = [];
    const kb = {
      vectors: { knn: (_kind: string, _v: Float32Array, k: number) => (knn.push(k), []) },
    } as unknown as QaKb;
    const r = new Retriever(kb, embedder, 60);
    await r.prepare(['a', 'b', 'a']);
    await r.embed('b');
    expect(embedder.calls).toEqual([{ texts: ['a', 'b'], purpose: 'query' }]);
    expect(await r.knn('triple', 'c', 0)).toEqual([]);
    expect(await r.originalKnn('c', 0)).toEqual([]);
    expect(embedder.calls).toHaveLength(1);
    expect(knn).toEqual([]);
    expect(await r.summariesByText('c', 0)).toEqual([]);
  });

  it('grounds a value in the nearest name spelled at least 0.6 alike, the limit included', async () => {
    // "abcde" and "abcdx" share 3 of their 5 padded trigrams each: Dice exactly 0.6.
    const entity = { id: 1, name: 'abcdx' };
    const kb = {
      graph: { findEntityByName: () => undefined, getEntities: () => [entity] },
      vectors: { knn: () => [{ id: 1, score: 0.5 }] },
    } as unknown as QaKb;
    const r = new Retriever(kb, new RecordingEmbedder(), 60);
    expect(spellingSimilarity('abcde', 'abcdx')).toBe(0.6);
    expect(await r.groundEntity('abcde')).toEqual([{ entity, score: 0.5 }]);
    expect(await r.groundEntity('abxyz')).toEqual([]);
  });

  it('names a document the KB no longer has by its id', () => {
    const kb = { documents: { getDocument: () => undefined } } as unknown as QaKb;
    expect(new Retriever(kb, new RecordingEmbedder(), 60).documentTitle(7)).toBe('document 7');
  });
});
