import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { Retriever } from '../../../src-main/engine/qa/retrieval/Retriever.js';
import { indexOdyssey } from './support/odysseyKb.js';
import { QaEmbedder } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

// hyp's hypothetical triples, verbalised as the strategy does; a repeated one and one with no content word.
const TEXTS = [
  'Odysseus ruled Ithaca',
  'Person married to Person',
  'Penelope wife of Odysseus',
  'Telemachus son of Odysseus',
  'Person married to Person',
  'Ithaca ruled by Person',
  'who was the',
];

describe('Retriever, several queries at once', () => {
  it.each(['triple', 'chunk'] as const)(
    'hybridOfEach ranks each %s query exactly as hybrid does alone',
    async (kind) => {
      const together = await new Retriever(kb, new QaEmbedder(), 60).hybridOfEach(kind, TEXTS, 20);
      const alone = new Retriever(kb, new QaEmbedder(), 60);
      const expected = [];
      for (const text of TEXTS) expected.push(await alone.hybrid(kind, text, 20));
      expect(together).toEqual(expected);
      expect(together.some((r) => r.dense.length > 0 && r.sparse.length > 0)).toBe(true);
      expect(new Set(together.map((r) => JSON.stringify(r.fused))).size).toBeGreaterThan(3);
    },
  );

  it('knnOfEach of no query or k 0 is nothing per query', async () => {
    const r = new Retriever(kb, new QaEmbedder(), 60);
    expect(await r.knnOfEach('triple', [], 5)).toEqual([]);
    expect(await r.knnOfEach('triple', TEXTS, 0)).toEqual(TEXTS.map(() => []));
  });
});
