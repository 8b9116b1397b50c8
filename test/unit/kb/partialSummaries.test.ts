import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, createKb, tempDir } from './kbFixtures.js';

/** Hub entities' partial summaries (PartialSummaryRepository.ts): kept, embedded, and gone when their facts change. */

const vector = (seed: number): Float32Array => Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed * (i + 1)));
const part = (text: string, firstFact: number, lastFact: number) => ({ text, firstFact, lastFact, factCount: 6 });

let kb: KnowledgeBase;
let cleanup: () => void;
let hub: number;
let other: number;
let docs: { a: number; b: number };
beforeEach(() => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  kb = createKb(temp.dir);
  kb.vectors.setEmbedder('test', 8);
  const a = addDoc(kb, '/a.txt', 'Odysseus was king of Ithaca.');
  const b = addDoc(kb, '/b.txt', 'Odysseus married Penelope.');
  docs = { a: a.id, b: b.id };
  hub = kb.graph.upsertEntity('Odysseus', 'Person');
  other = kb.graph.upsertEntity('Ithaca', 'Island');
  const penelope = kb.graph.upsertEntity('Penelope', 'Person');
  kb.graph.addTriple({ sourceId: hub, relation: 'KING_OF', targetId: other, chunkId: a.chunkIds[0]! });
  kb.graph.addTriple({ sourceId: hub, relation: 'MARRIED_TO', targetId: penelope, chunkId: b.chunkIds[0]! });
});
afterEach(() => {
  kb.close();
  cleanup();
});

function store(entityId: number): number[] {
  const written = kb.partialSummaries.replace(entityId, [part('He was king.', 1, 3), part('He married.', 4, 6)]);
  kb.vectors.putVectors(
    'entity_partial',
    written.map((p) => ({ id: p.id, vector: vector(p.id) })),
  );
  return written.map((p) => p.id);
}

describe('partial summaries', () => {
  it('are stored in fact order, embedded as their own vector kind, and found nearest within their entities', () => {
    const ids = store(hub);
    expect(kb.partialSummaries.ofEntity(hub).map((p) => [p.ord, p.text, p.firstFact, p.lastFact, p.factCount])).toEqual(
      [
        [0, 'He was king.', 1, 3, 6],
        [1, 'He married.', 4, 6, 6],
      ],
    );
    expect(kb.vectors.countMissingVectors('entity_partial')).toBe(0);
    expect(kb.vectors.knn('entity_partial', vector(ids[1]!), 1)[0]!.id).toBe(ids[1]);
    expect(kb.partialSummaries.nearestOf([hub], vector(ids[0]!), 5).map((h) => h.id)).toEqual([ids[0], ids[1]]);
    expect(kb.partialSummaries.nearestOf([other], vector(ids[0]!), 5)).toEqual([]);
  });

  it('are replaced when the entity is reduced again, their old vectors with them', () => {
    const old = store(hub);
    kb.graph.setEntitySummary(hub, 'Odysseus (Person): king of Ithaca.');
    expect(kb.partialSummaries.ofEntity(hub)).toEqual([]);
    expect(kb.vectors.knn('entity_partial', vector(old[0]!), 5)).toEqual([]);
    const fresh = kb.partialSummaries.replace(hub, [part('Only one now.', 1, 6)]);
    expect(fresh.map((p) => p.text)).toEqual(['Only one now.']);
    expect(kb.vectors.countMissingVectors('entity_partial')).toBe(1);
  });

  it('go when a document the entity has facts from is removed, and with the entity', () => {
    store(hub);
    kb.documents.deleteDocument(docs.b);
    // Odysseus stays (Ithaca's fact), stale, without the partials that held the removed fact.
    expect(kb.graph.getEntity(hub)!.summaryStale).toBe(true);
    expect(kb.partialSummaries.ofEntity(hub)).toEqual([]);
    store(hub);
    kb.documents.deleteDocument(docs.a);
    expect(kb.graph.getEntity(hub)).toBeUndefined();
    expect(kb.partialSummaries.count()).toBe(0);
    expect(kb.stats().vectors.entity_partial).toBe(0);
  });

  it('refuse an entity that does not exist', () => {
    expect(() => kb.partialSummaries.replace(9999, [part('x', 1, 1)])).toThrow(/entity 9999/);
  });
});
