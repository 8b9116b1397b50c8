import { describe, expect, it } from 'vitest';
import { chunks, useTempKb } from './kbFixtures.js';

describe('DocumentRepository', () => {
  const t = useTempKb();

  it('replaces passages with their vectors, and counts documents with chunks but no passages', () => {
    t.kb.vectors.setEmbedder('test-embedder', 2);
    const doc = t.kb.documents.addDocument({ path: 'a.txt', title: 'a', hash: 'h', mime: 'text/plain', size: 3 });
    t.kb.documents.replaceChunks(doc.id, chunks('one', 'two'));
    expect(t.kb.documents.countDocumentsWithoutPassages()).toBe(1);
    const [old] = t.kb.documents.replacePassages(doc.id, chunks('one two'));
    t.kb.vectors.putVectors('passage', [{ id: (old as { id: number }).id, vector: Float32Array.from([1, 0]) }]);
    expect(t.kb.documents.countDocumentsWithoutPassages()).toBe(0);
    const fresh = t.kb.documents.replacePassages(doc.id, chunks('one', 'two'));
    expect(fresh.map((p) => p.text)).toEqual(['one', 'two']);
    expect(t.kb.vectors.counts().passage).toBe(0);
    expect(t.kb.documents.getPassages([(old as { id: number }).id])).toEqual([]);
  });
});
