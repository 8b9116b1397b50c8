import { describe, expect, it } from 'vitest';
import { addDoc, useTempKb } from './kbFixtures.js';

describe('GraphRepository', () => {
  const t = useTempKb();

  it('removes only the triples whose every provenance goes, then only the entities left without triples', () => {
    const { chunkIds } = addDoc(t.kb, 'a.txt', 'one', 'two');
    const [first, second] = chunkIds as [number, number];
    const ada = t.kb.graph.upsertEntity('Ada', 'Person');
    const bob = t.kb.graph.upsertEntity('Bob', 'Person');
    const cy = t.kb.graph.upsertEntity('Cy', 'Person');
    const only = t.kb.graph.addTriple({ sourceId: ada, relation: 'knows', targetId: bob, chunkId: first });
    const shared = t.kb.graph.addTriple({ sourceId: bob, relation: 'knows', targetId: cy, chunkId: first });
    t.kb.graph.addTriple({ sourceId: bob, relation: 'knows', targetId: cy, chunkId: second });
    t.kb.transaction(() => {
      const removed = t.kb.graph.removeTriplesOnlyFrom([first]);
      expect(removed.removedTripleIds).toEqual([only]);
      expect([...removed.touchedEntityIds].sort((a, b) => a - b)).toEqual([ada, bob, cy]);
      const orphans = t.kb.graph.removeOrphans(removed.touchedEntityIds);
      expect(orphans).toEqual({ removedEntityIds: [ada], touchedEntityIds: [bob, cy] });
    });
    expect(t.kb.graph.getTriples([only, shared]).map((t) => t.id)).toEqual([shared]);
    expect(t.kb.graph.findEntityByName('Ada')).toBeUndefined();
    expect(t.kb.graph.searchEntityNames('Ada')).toEqual([]);
  });

  it('clears every entity, alias and triple with the entity text index', () => {
    const ada = t.kb.graph.upsertEntity('Ada', 'Person');
    const bob = t.kb.graph.upsertEntity('Bob', 'Person');
    t.kb.graph.addAliases(ada, ['Countess']);
    t.kb.graph.addTriple({ sourceId: ada, relation: 'knows', targetId: bob, chunkId: null });
    t.kb.transaction(() => t.kb.graph.clear());
    expect(t.kb.graph.countEntities()).toBe(0);
    expect(t.kb.graph.countTriples()).toBe(0);
    expect(t.kb.graph.findEntityByName('Countess')).toBeUndefined();
    expect(t.kb.graph.searchEntities('Ada')).toEqual([]);
  });
});
