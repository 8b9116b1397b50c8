import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, chunks, createKb, expectNoOrphans, orphanReport, tempDir } from './kbFixtures.js';

describe('KnowledgeBase deletion', () => {
  let cleanup: () => void;
  let kb: KnowledgeBase;
  beforeEach(() => {
    let dir: string;
    ({ dir, cleanup } = tempDir());
    kb = createKb(dir);
    kb.vectors.setEmbedder('test', 8);
  });
  afterEach(() => {
    kb.close();
    cleanup();
  });

  const KINDS = ['chunk', 'chunk_original', 'entity_name', 'entity_summary', 'triple', 'passage'] as const;
  const vector = (seed: number): Float32Array =>
    Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed * 13 + i) + 0.01);

  /** Two documents sharing one entity and one triple, plus an imported triple; everything embedded and indexed. */
  function seed() {
    const a = addDoc(kb, '/a.txt', 'Odysseus is king of Ithaca.', 'Telemachus is his son.');
    const b = addDoc(kb, '/b.txt', 'Odysseus rules Ithaca.', 'Penelope waits.');
    const e = {
      odysseus: kb.graph.upsertEntity('Odysseus', 'person'),
      ithaca: kb.graph.upsertEntity('Ithaca', 'place'),
      telemachus: kb.graph.upsertEntity('Telemachus', 'person'),
      penelope: kb.graph.upsertEntity('Penelope', 'person'),
      greece: kb.graph.upsertEntity('Greece', 'place'),
      argos: kb.graph.upsertEntity('Argos', 'animal'),
    };
    const t = {
      shared: kb.graph.addTriple({
        sourceId: e.odysseus,
        relation: 'king_of',
        targetId: e.ithaca,
        chunkId: a.chunkIds[0]!,
      }),
      onlyA: kb.graph.addTriple({
        sourceId: e.telemachus,
        relation: 'son_of',
        targetId: e.odysseus,
        chunkId: a.chunkIds[1]!,
      }),
      onlyA2: kb.graph.addTriple({
        sourceId: e.argos,
        relation: 'dog_of',
        targetId: e.telemachus,
        chunkId: a.chunkIds[1]!,
      }),
      onlyB: kb.graph.addTriple({
        sourceId: e.penelope,
        relation: 'wife_of',
        targetId: e.odysseus,
        chunkId: b.chunkIds[1]!,
      }),
      imported: kb.graph.addTriple({ sourceId: e.ithaca, relation: 'part_of', targetId: e.greece, chunkId: null }),
      importedArgos: kb.graph.addTriple({ sourceId: e.argos, relation: 'lives_in', targetId: e.ithaca, chunkId: null }),
    };
    kb.graph.addTriple({ sourceId: e.odysseus, relation: 'king_of', targetId: e.ithaca, chunkId: b.chunkIds[0]! });
    kb.graph.mergeEntities('Telemachus', [e.telemachus, kb.graph.upsertEntity('Telemachos', 'person')]);
    kb.graph.addTriple({ sourceId: e.telemachus, relation: 'son_of', targetId: e.odysseus, chunkId: a.chunkIds[0]! });
    for (const id of Object.values(e)) kb.graph.setEntitySummary(id, `summary ${id}`);
    const allChunks = [...a.chunkIds, ...b.chunkIds];
    kb.vectors.putVectors(
      'chunk',
      allChunks.map((id) => ({ id, vector: vector(id) })),
    );
    kb.textIndex.indexText(
      'chunk',
      allChunks.map((id) => ({ id, text: kb.documents.getChunk(id)!.text })),
    );
    kb.vectors.putVectors(
      'chunk_original',
      allChunks.map((id) => ({ id, vector: vector(50 + id) })),
    );
    kb.textIndex.indexText(
      'chunk_original',
      allChunks.map((id) => ({ id, text: kb.documents.getChunk(id)!.text })),
    );
    kb.vectors.putVectors(
      'entity_name',
      Object.values(e).map((id) => ({ id, vector: vector(100 + id) })),
    );
    kb.vectors.putVectors(
      'entity_summary',
      Object.values(e).map((id) => ({ id, vector: vector(200 + id) })),
    );
    kb.vectors.putVectors(
      'triple',
      Object.values(t).map((id) => ({ id, vector: vector(300 + id) })),
    );
    kb.textIndex.indexText(
      'triple',
      kb.graph
        .getTriples(Object.values(t))
        .map((x) => ({ id: x.id, text: `${x.sourceName} ${x.relation} ${x.targetName}` })),
    );
    const passages = {
      a: kb.documents
        .replacePassages(a.id, chunks('Odysseus is king of Ithaca. Telemachus', 'Telemachus is his son.'))
        .map((p) => p.id),
      b: kb.documents.replacePassages(b.id, chunks('Odysseus rules Ithaca. Penelope waits.')).map((p) => p.id),
    };
    kb.vectors.putVectors(
      'passage',
      [...passages.a, ...passages.b].map((id) => ({ id, vector: vector(400 + id) })),
    );
    // Load the in-memory indexes so deletion has to keep them in step too.
    for (const kind of KINDS) kb.vectors.knn(kind, vector(1), 3);
    return { a, b, e, t, passages };
  }

  it('removes everything that existed only because of the document, and nothing else', () => {
    const { a, b, e, t, passages } = seed();
    expect(expectNoOrphans(orphanReport(kb.file))).toEqual({});
    const result = kb.documents.deleteDocument(a.id);

    expect(result.removedChunkIds.sort()).toEqual([...a.chunkIds].sort());
    expect(result.removedTripleIds).toEqual([t.onlyA, t.onlyA2].sort((x, y) => x - y));
    expect(result.removedEntityIds).toEqual([e.telemachus]); // Argos keeps its imported triple
    expect(result.touchedEntityIds).toEqual([e.odysseus, e.ithaca, e.argos].sort((x, y) => x - y));
    expect(kb.documents.getDocument(a.id)).toBeUndefined();
    expect(kb.graph.findEntityByName('Telemachos')).toBeUndefined(); // aliases go with their entity
    for (const id of result.touchedEntityIds) expect(kb.graph.getEntity(id)?.summaryStale).toBe(true);
    expect(kb.graph.getEntity(e.penelope)?.summaryStale).toBe(false);
    expect(kb.graph.getTriples([t.shared])[0]?.chunkIds).toEqual([b.chunkIds[0]]);
    expect(kb.graph.getTriples([t.imported, t.importedArgos])).toHaveLength(2);

    expect(expectNoOrphans(orphanReport(kb.file))).toEqual({});
    const stats = kb.stats();
    expect(stats).toMatchObject({ documents: 1, chunks: 2, entities: 5, triples: 4 });
    expect(stats.vectors).toEqual({
      chunk: 2,
      chunk_original: 2,
      entity_name: 5,
      entity_summary: 5,
      entity_partial: 0,
      triple: 4,
      passage: 1,
    });
    expect(kb.documents.getPassages([...passages.a, ...passages.b]).map((p) => p.id)).toEqual(passages.b);
    expect(kb.documents.passagesOfDocument(a.id)).toEqual([]);
    expect(kb.documents.getDocument(b.id)).toMatchObject({ chunkCount: 2, tripleCount: 2 });

    // No stale vectors or FTS rows can come back from a search.
    for (const kind of KINDS) {
      const ids = kb.vectors.knn(kind, vector(a.chunkIds[0]!), 50).map((r) => r.id);
      const exact = kb.vectors.knn(kind, vector(a.chunkIds[0]!), 50, { exact: true }).map((r) => r.id);
      expect(ids.sort()).toEqual(exact.sort());
    }
    expect(
      kb.vectors
        .knn('chunk', vector(1), 10)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...b.chunkIds].sort());
    expect(kb.vectors.knn('passage', vector(1), 10).map((r) => r.id)).toEqual(passages.b);
    expect(kb.textIndex.bm25('chunk', 'Telemachus son king', 10).map((r) => r.id)).toEqual([]);
    expect(kb.textIndex.bm25('chunk_original', 'Telemachus son king', 10).map((r) => r.id)).toEqual([]);
    expect(kb.textIndex.bm25('triple', 'Telemachus', 10)).toEqual([]);
    expect(kb.graph.searchEntities('Telem')).toEqual([]);
  });

  it('deleting every document leaves only what was imported', () => {
    const { a, b, e, t } = seed();
    kb.documents.deleteDocument(b.id);
    kb.documents.deleteDocument(a.id);
    expect(expectNoOrphans(orphanReport(kb.file))).toEqual({});
    expect(kb.graph.countTriples()).toBe(2);
    expect(kb.graph.getTriples([t.imported, t.importedArgos]).map((x) => x.id)).toEqual([t.imported, t.importedArgos]);
    expect(kb.graph.listEntities().map((x) => x.id)).toEqual([e.ithaca, e.greece, e.argos]);
    expect(kb.stats().chunks).toBe(0);
    expect(kb.stats().vectors.passage).toBe(0);
  });

  it('replacing chunks clears what hung off the old ones', () => {
    const { a, e, t } = seed();
    const fresh = kb.documents.replaceChunks(a.id, [
      { ord: 0, text: 'New text.', language: 'en', startOffset: 0, endOffset: 9, page: 1 },
    ]);
    expect(expectNoOrphans(orphanReport(kb.file))).toEqual({});
    expect(kb.documents.getDocument(a.id)).toMatchObject({ chunkCount: 1, tripleCount: 0 });
    expect(kb.graph.getTriples([t.onlyA, t.onlyA2])).toEqual([]);
    expect(kb.graph.getEntity(e.telemachus)).toBeUndefined();
    expect(kb.vectors.missingVectors('chunk')).toEqual([fresh[0]!.id]);
  });

  it('replacing passages drops the old ones with their vectors', () => {
    const { a, passages } = seed();
    const fresh = kb.documents.replacePassages(a.id, chunks('One passage now.'));
    expect(expectNoOrphans(orphanReport(kb.file))).toEqual({});
    expect(fresh.map((p) => p.ord)).toEqual([0]);
    expect(fresh[0]!.id).toBeGreaterThan(Math.max(...passages.a, ...passages.b)); // ids are never reused
    expect(kb.documents.getPassages(passages.a)).toEqual([]);
    expect(kb.vectors.missingVectors('passage')).toEqual([fresh[0]!.id]);
    expect(
      kb.vectors
        .knn('passage', vector(1), 10)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...passages.b].sort());
    expect(kb.documents.countDocumentsWithoutPassages()).toBe(0);
  });
});
