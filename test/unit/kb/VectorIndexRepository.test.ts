import { describe, expect, it } from 'vitest';
import { addDoc, useTempKb } from './kbFixtures.js';

const unit = (...values: number[]): Float32Array => Float32Array.from(values);

describe('VectorIndexRepository', () => {
  const t = useTempKb((kb) => kb.vectors.setEmbedder('test-embedder', 4));

  it('clears whole kinds and leaves the others, and a loaded index follows', () => {
    const { chunkIds } = addDoc(t.kb, 'a.txt', 'one', 'two');
    const [first, second] = chunkIds as [number, number];
    t.kb.vectors.putVectors('chunk', [
      { id: first, vector: unit(1, 0, 0, 0) },
      { id: second, vector: unit(0, 1, 0, 0) },
    ]);
    t.kb.vectors.putVectors('passage', []);
    expect(t.kb.vectors.knn('chunk', unit(1, 0.1, 0, 0), 1)[0]?.id).toBe(first);
    t.kb.transaction(() => t.kb.vectors.clearKinds(['chunk']));
    expect(t.kb.vectors.counts().chunk).toBe(0);
    expect(t.kb.vectors.knn('chunk', unit(1, 0.1, 0, 0), 1)).toEqual([]);
    expect(t.kb.vectors.missingVectors('chunk')).toEqual([first, second]);
  });

  it('deletes rows inside the caller’s transaction: a rollback keeps them', () => {
    const { chunkIds } = addDoc(t.kb, 'a.txt', 'one');
    const id = chunkIds[0] as number;
    t.kb.vectors.putVectors('chunk', [{ id, vector: unit(0, 0, 1, 0) }]);
    expect(t.kb.vectors.knn('chunk', unit(0, 0, 1, 0), 1)[0]?.id).toBe(id);
    expect(() =>
      t.kb.transaction(() => {
        t.kb.vectors.deleteRows('chunk', [id]);
        expect(t.kb.vectors.counts().chunk).toBe(0);
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(t.kb.vectors.counts().chunk).toBe(1);
    expect(t.kb.vectors.knn('chunk', unit(0, 0, 1, 0), 1)[0]?.id).toBe(id);
  });

  it('keeps a calibration only for the embedder it was made with', () => {
    const calibration = { embedder: 'test-embedder' } as Parameters<typeof t.kb.vectors.setSimilarityCalibration>[0];
    t.kb.vectors.setSimilarityCalibration(calibration);
    expect(t.kb.vectors.similarityCalibration()).toEqual(calibration);
    t.kb.vectors.setEmbedder('other-embedder', 4);
    expect(t.kb.vectors.similarityCalibration()).toBeNull();
  });
});
