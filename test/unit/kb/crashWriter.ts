/**
 * Child process for crash.test.ts: commits one small document, then writes a large document inside
 * one transaction forever, announcing on stdout once the uncommitted pages have spilled into the WAL
 * (several MB), until the parent SIGKILLs it. Run as `node --import tsx crashWriter.ts <kb file>`.
 */
import { existsSync, statSync, writeSync } from 'node:fs';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';

const file = process.argv[2];
if (!file) throw new Error('usage: crashWriter.ts <kb file>');
const kb = KnowledgeBase.open(file);
kb.vectors.setEmbedder('crash-test', 1024);
const vector = (i: number): Float32Array => Float32Array.from({ length: 1024 }, (_, j) => Math.sin(i * 31 + j) + 0.01);

const committed = kb.documents.addDocument({
  path: '/committed.txt',
  title: 'committed',
  hash: 'c',
  mime: 'text/plain',
  size: 1,
});
const small = kb.documents.replaceChunks(committed.id, [
  { ord: 0, text: 'Committed text.', language: 'en', startOffset: 0, endOffset: 15, page: null },
]);
kb.vectors.putVectors('chunk', [{ id: small[0]!.id, vector: vector(0) }]);
kb.textIndex.indexText('chunk', [{ id: small[0]!.id, text: small[0]!.text }]);
writeSync(1, 'committed\n');

kb.transaction(() => {
  const doc = kb.documents.addDocument({ path: '/big.txt', title: 'big', hash: 'b', mime: 'text/plain', size: 1 });
  const chunks = kb.documents.replaceChunks(
    doc.id,
    Array.from({ length: 5000 }, (_, ord) => ({
      ord,
      text: `Big chunk number ${ord} about entity ${ord % 97}.`,
      language: 'en',
      startOffset: ord * 40,
      endOffset: ord * 40 + 39,
      page: null,
    })),
  );
  kb.vectors.putVectors(
    'chunk',
    chunks.map((c) => ({ id: c.id, vector: vector(c.id) })),
  );
  kb.textIndex.indexText(
    'chunk',
    chunks.map((c) => ({ id: c.id, text: c.text })),
  );
  let announced = false;
  for (let i = 0; ; i++) {
    const source = kb.graph.upsertEntity(`Entity ${i}`, 'thing');
    const target = kb.graph.upsertEntity(`Entity ${i + 1}`, 'thing');
    const triple = kb.graph.addTriple({
      sourceId: source,
      relation: 'next_to',
      targetId: target,
      chunkId: chunks[i % chunks.length]!.id,
    });
    kb.vectors.putVectors('triple', [{ id: triple, vector: vector(triple) }]);
    kb.textIndex.indexText('triple', [{ id: triple, text: `Entity ${i} next to Entity ${i + 1}` }]);
    if (!announced && i % 200 === 0 && existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 4_000_000) {
      writeSync(1, 'mid-transaction\n');
      announced = true;
    }
  }
});
