import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, createKb, tempDir } from './kbFixtures.js';

const unit = (...values: number[]): Float32Array => Float32Array.from(values);

describe('VectorIndexRepository', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
    kb.vectors.setEmbedder('test-embedder', 4);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  it('clears whole kinds and leaves the others, and a loaded index follows', () => {
    const { chunkIds } = addDoc(kb, 'a.txt', 'one', 'two');
    const [first, second] = chunkIds as [number, number];
    kb.vectors.putVectors('chunk', [
      { id: first, vector: unit(1, 0, 0, 0) },
      { id: second, vector: unit(0, 1, 0, 0) },
    ]);
    kb.vectors.putVectors('passage', []);
    expect(kb.vectors.knn('chunk', unit(1, 0.1, 0, 0), 1)[0]?.id).toBe(first);
    kb.transaction(() => kb.vectors.clearKinds(['chunk']));
    expect(kb.vectors.counts().chunk).toBe(0);
    expect(kb.vectors.knn('chunk', unit(1, 0.1, 0, 0), 1)).toEqual([]);
    expect(kb.vectors.missingVectors('chunk')).toEqual([first, second]);
  });

  it('deletes rows inside the caller’s transaction: a rollback keeps them', () => {
    const { chunkIds } = addDoc(kb, 'a.txt', 'one');
    const id = chunkIds[0] as number;
    kb.vectors.putVectors('chunk', [{ id, vector: unit(0, 0, 1, 0) }]);
    expect(kb.vectors.knn('chunk', unit(0, 0, 1, 0), 1)[0]?.id).toBe(id);
    expect(() =>
      kb.transaction(() => {
        kb.vectors.deleteRows('chunk', [id]);
        expect(kb.vectors.counts().chunk).toBe(0);
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(kb.vectors.counts().chunk).toBe(1);
    expect(kb.vectors.knn('chunk', unit(0, 0, 1, 0), 1)[0]?.id).toBe(id);
  });

  it('keeps a calibration only for the embedder it was made with', () => {
    const calibration = { embedder: 'test-embedder' } as Parameters<typeof kb.vectors.setSimilarityCalibration>[0];
    kb.vectors.setSimilarityCalibration(calibration);
    expect(kb.vectors.similarityCalibration()).toEqual(calibration);
    kb.vectors.setEmbedder('other-embedder', 4);
    expect(kb.vectors.similarityCalibration()).toBeNull();
  });
});
