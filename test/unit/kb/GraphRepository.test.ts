import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { addDoc, createKb, tempDir } from './kbFixtures.js';

describe('GraphRepository', () => {
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

  it('removes only the triples whose every provenance goes, then only the entities left without triples', () => {
    const { chunkIds } = addDoc(kb, 'a.txt', 'one', 'two');
    const [first, second] = chunkIds as [number, number];
    const ada = kb.graph.upsertEntity('Ada', 'Person');
    const bob = kb.graph.upsertEntity('Bob', 'Person');
    const cy = kb.graph.upsertEntity('Cy', 'Person');
    const only = kb.graph.addTriple({ sourceId: ada, relation: 'knows', targetId: bob, chunkId: first });
    const shared = kb.graph.addTriple({ sourceId: bob, relation: 'knows', targetId: cy, chunkId: first });
    kb.graph.addTriple({ sourceId: bob, relation: 'knows', targetId: cy, chunkId: second });
    kb.transaction(() => {
      const removed = kb.graph.removeTriplesOnlyFrom([first]);
      expect(removed.removedTripleIds).toEqual([only]);
      expect([...removed.touchedEntityIds].sort((a, b) => a - b)).toEqual([ada, bob, cy]);
      const orphans = kb.graph.removeOrphans(removed.touchedEntityIds);
      expect(orphans).toEqual({ removedEntityIds: [ada], touchedEntityIds: [bob, cy] });
    });
    expect(kb.graph.getTriples([only, shared]).map((t) => t.id)).toEqual([shared]);
    expect(kb.graph.findEntityByName('Ada')).toBeUndefined();
    expect(kb.graph.searchEntityNames('Ada')).toEqual([]);
  });

  it('clears every entity, alias and triple with the entity text index', () => {
    const ada = kb.graph.upsertEntity('Ada', 'Person');
    const bob = kb.graph.upsertEntity('Bob', 'Person');
    kb.graph.addAliases(ada, ['Countess']);
    kb.graph.addTriple({ sourceId: ada, relation: 'knows', targetId: bob, chunkId: null });
    kb.transaction(() => kb.graph.clear());
    expect(kb.graph.countEntities()).toBe(0);
    expect(kb.graph.countTriples()).toBe(0);
    expect(kb.graph.findEntityByName('Countess')).toBeUndefined();
    expect(kb.graph.searchEntities('Ada')).toEqual([]);
  });
});
