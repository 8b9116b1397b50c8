import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { chunks, createKb, tempDir } from './kbFixtures.js';

describe('DocumentRepository', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  it('replaces passages with their vectors, and counts documents with chunks but no passages', () => {
    kb.vectors.setEmbedder('test-embedder', 2);
    const doc = kb.documents.addDocument({ path: 'a.txt', title: 'a', hash: 'h', mime: 'text/plain', size: 3 });
    kb.documents.replaceChunks(doc.id, chunks('one', 'two'));
    expect(kb.documents.countDocumentsWithoutPassages()).toBe(1);
    const [old] = kb.documents.replacePassages(doc.id, chunks('one two'));
    kb.vectors.putVectors('passage', [{ id: (old as { id: number }).id, vector: Float32Array.from([1, 0]) }]);
    expect(kb.documents.countDocumentsWithoutPassages()).toBe(0);
    const fresh = kb.documents.replacePassages(doc.id, chunks('one', 'two'));
    expect(fresh.map((p) => p.text)).toEqual(['one', 'two']);
    expect(kb.vectors.counts().passage).toBe(0);
    expect(kb.documents.getPassages([(old as { id: number }).id])).toEqual([]);
  });
});
