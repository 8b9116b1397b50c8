import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { BinaryIndex } from '../../../src-main/engine/kb/utils/BinaryIndex.js';
import { addDoc, clusteredVectors, createKb, tempDir } from './kbFixtures.js';

function recallAt(k: number, got: number[], truth: number[]): number {
  const want = new Set(truth.slice(0, k));
  return got.slice(0, k).filter((id) => want.has(id)).length / k;
}

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof PolyhopError ? error.code : String(error);
  }
  return undefined;
}

describe('KnowledgeBase vectors', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  let chunkIds: number[];
  const dimension = 64;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
    kb.vectors.setEmbedder('test-64', dimension);
    chunkIds = addDoc(kb, '/a', ...Array.from({ length: 3000 }, (_, i) => `chunk ${i}`)).chunkIds;
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  it('finds the exact top 10 on clustered vectors (recall@10 ≥ 0.95), scores being cosine', () => {
    const sample = clusteredVectors({ dimension, clusters: 30, spread: 0.8, seed: 1 });
    kb.vectors.putVectors(
      'chunk',
      chunkIds.map((id) => ({ id, vector: sample() })),
    );
    let recall = 0;
    let coarseRecall = 0;
    const queries = 30;
    for (let q = 0; q < queries; q++) {
      const query = sample();
      const exact = kb.vectors.knn('chunk', query, 10, { exact: true });
      const fast = kb.vectors.knn('chunk', query, 10);
      coarseRecall += recallAt(
        10,
        kb.vectors.knn('chunk', query, 10, { oversample: 1 }).map((r) => r.id),
        exact.map((r) => r.id),
      );
      expect(fast).toHaveLength(10);
      expect(fast[0]!.score).toBeLessThanOrEqual(1 + 1e-6);
      expect(fast.map((r) => r.score)).toEqual([...fast.map((r) => r.score)].sort((a, b) => b - a));
      recall += recallAt(
        10,
        fast.map((r) => r.id),
        exact.map((r) => r.id),
      );
    }
    expect(recall / queries).toBeGreaterThanOrEqual(0.95);
    expect(coarseRecall).toBeLessThan(recall); // the rerank is doing real work on this data
    // Scores are cosine similarities of the stored (normalised) vectors.
    const v = sample();
    kb.vectors.putVectors('chunk', [{ id: chunkIds[0]!, vector: v.map((x) => x * 3) }]);
    const hit = kb.vectors.knn('chunk', v, 1)[0]!;
    expect(hit.id).toBe(chunkIds[0]);
    expect(hit.score).toBeCloseTo(1, 5);
  });

  it('knnOfEach answers each query as knn does alone, a zero query with nothing', () => {
    const sample = clusteredVectors({ dimension, clusters: 30, spread: 0.8, seed: 2 });
    kb.vectors.putVectors(
      'chunk',
      chunkIds.map((id) => ({ id, vector: sample() })),
    );
    const queries = [
      ...Array.from({ length: 5 }, sample),
      new Float32Array(dimension),
      ...Array.from({ length: 3 }, sample),
    ];
    for (const options of [{}, { exact: true }, { oversample: 2 }]) {
      const each = kb.vectors.knnOfEach('chunk', queries, 7, options);
      expect(each).toEqual(queries.map((q) => kb.vectors.knn('chunk', q, 7, options)));
      expect(each[5]).toEqual([]);
      expect(each.filter((r) => r.length === 7)).toHaveLength(8);
    }
    expect(kb.vectors.knnOfEach('chunk', queries, 0)).toEqual(queries.map(() => []));
  });

  it('stays coherent with writes from another connection and with rolled-back transactions', () => {
    const sample = clusteredVectors({ dimension, clusters: 5, spread: 0.5, seed: 2 });
    kb.vectors.putVectors(
      'chunk',
      chunkIds.slice(0, 100).map((id) => ({ id, vector: sample() })),
    );
    const probe = sample();
    kb.vectors.knn('chunk', probe, 5); // loads the in-memory index
    const other = KnowledgeBase.open(kb.file);
    other.vectors.putVectors('chunk', [{ id: chunkIds[500]!, vector: probe }]);
    other.close();
    expect(kb.vectors.knn('chunk', probe, 1)[0]?.id).toBe(chunkIds[500]);

    expect(() =>
      kb.transaction(() => {
        kb.vectors.putVectors('chunk', [{ id: chunkIds[600]!, vector: probe.map((x) => -x) }]);
        kb.vectors.deleteVectors('chunk', [chunkIds[500]!]);
        throw new Error('rollback');
      }),
    ).toThrow('rollback');
    expect(kb.vectors.knn('chunk', probe, 1)[0]?.id).toBe(chunkIds[500]);
    expect(
      kb.vectors.knn(
        'chunk',
        probe.map((x) => -x),
        1,
      )[0]?.id,
    ).not.toBe(chunkIds[600]);
    kb.vectors.deleteVectors('chunk', [chunkIds[500]!]);
    expect(kb.vectors.knn('chunk', probe, 200).map((r) => r.id)).not.toContain(chunkIds[500]);
    expect(kb.vectors.missingVectors('chunk', 3000)).toHaveLength(3000 - 100);
    // Paged by id: each page starts after the last id of the one before, and the pages make up the whole.
    expect(kb.vectors.countMissingVectors('chunk')).toBe(3000 - 100);
    const pages: number[][] = [];
    for (
      let page = kb.vectors.missingVectors('chunk', 700);
      page.length > 0;
      page = kb.vectors.missingVectors('chunk', 700, page.at(-1)!)
    )
      pages.push(page);
    expect(pages.map((p) => p.length)).toEqual([700, 700, 700, 700, 100]);
    expect(pages.flat()).toEqual(kb.vectors.missingVectors('chunk', 3000));
  });

  it('loads stored codes in pages that line up with their ids (more rows than one page)', () => {
    // 70,000 entity-name vectors: more than one 65,536-row page, with gaps in the ids.
    const sample = clusteredVectors({ dimension, clusters: 50, spread: 0.8, seed: 4 });
    const ids: number[] = [];
    kb.transaction(() => {
      for (let i = 0; i < 70_500; i++) ids.push(kb.graph.upsertEntity(`e${i}`, 't'));
    });
    const kept = ids.filter((_, i) => i % 141 !== 7);
    const vectors = new Map(kept.map((id) => [id, sample()]));
    kb.vectors.putVectors(
      'entity_name',
      kept.map((id) => ({ id, vector: vectors.get(id)! })),
    );
    const reopened = KnowledgeBase.open(kb.file);
    try {
      for (const id of [kept[0]!, kept[65_535]!, kept[65_536]!, kept.at(-1)!, kept[40_000]!]) {
        const [hit] = reopened.vectors.knn('entity_name', vectors.get(id)!, 1);
        expect(hit?.id).toBe(id);
        expect(hit?.score).toBeCloseTo(1, 5);
      }
    } finally {
      reopened.close();
    }
  });

  it('refuses wrong dimensions, zero vectors, unknown rows and a missing embedder', () => {
    expect(
      errorCode(() => kb.vectors.putVectors('chunk', [{ id: chunkIds[0]!, vector: new Float32Array(3).fill(1) }])),
    ).toBe('CONFLICT');
    expect(errorCode(() => kb.vectors.knn('chunk', new Float32Array(3).fill(1), 3))).toBe('CONFLICT');
    expect(
      errorCode(() => kb.vectors.putVectors('chunk', [{ id: chunkIds[0]!, vector: new Float32Array(dimension) }])),
    ).toBe('BAD_INPUT');
    expect(
      errorCode(() =>
        kb.vectors.putVectors('chunk', [{ id: chunkIds[0]!, vector: new Float32Array(dimension).fill(Number.NaN) }]),
      ),
    ).toBe('BAD_INPUT');
    expect(
      errorCode(() => kb.vectors.putVectors('triple', [{ id: 424242, vector: new Float32Array(dimension).fill(1) }])),
    ).toBe('NOT_FOUND');
    expect(errorCode(() => kb.vectors.putVectors('nope' as never, []))).toBe('BAD_INPUT');
    kb.vectors.setEmbedder('another', 16);
    expect(kb.vectors.knn('chunk', new Float32Array(16).fill(1), 3)).toEqual([]);
  });
});

describe('BinaryIndex', () => {
  it('two-stage scan over a large set keeps recall against brute force', () => {
    const dimension = 256;
    const n = 30_000;
    const sample = clusteredVectors({ dimension, clusters: 60, spread: 0.8, seed: 3 });
    const vectors = Array.from({ length: n }, sample);
    const index = new BinaryIndex(dimension, 0);
    vectors.forEach((v, id) => index.set(id, new Uint8Array(BinaryIndex.encode(v).buffer)));
    expect(index.size).toBe(n);
    const dot = (a: Float32Array, b: Float32Array): number => {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
      return s;
    };
    let recall = 0;
    const queries = 10;
    for (let q = 0; q < queries; q++) {
      const query = sample();
      const truth = vectors
        .map((v, id) => ({ id, s: dot(query, v) }))
        .sort((a, b) => b.s - a.s)
        .map((r) => r.id);
      const candidates = index.candidates(BinaryIndex.encode(query), 400);
      expect(candidates).toHaveLength(400);
      const reranked = candidates
        .map((id) => ({ id, s: dot(query, vectors[id]!) }))
        .sort((a, b) => b.s - a.s)
        .map((r) => r.id);
      recall += recallAt(10, reranked, truth);
    }
    expect(recall / queries).toBeGreaterThanOrEqual(0.95);
  });

  it('deletes by swapping and keeps ids right', () => {
    const index = new BinaryIndex(64, 0);
    const code = (bits: number) => new Uint8Array(Uint32Array.of(bits, 0).buffer);
    index.set(10, code(0b1));
    index.set(20, code(0b11));
    index.set(30, code(0b111));
    index.delete(10);
    index.delete(99);
    index.set(20, code(0));
    expect(index.size).toBe(2);
    expect(index.candidates(Uint32Array.of(0, 0), 1)).toEqual([20]);
    expect(index.candidates(Uint32Array.of(0b111, 0), 1)).toEqual([30]);
    expect(index.candidates(Uint32Array.of(0, 0), 5).sort()).toEqual([20, 30]);
  });
});
