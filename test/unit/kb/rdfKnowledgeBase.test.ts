import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { exportRdf } from '../../../src-main/engine/kb/rdf/exportRdf.js';
import { knowledgeBaseRdfSource } from '../../../src-main/engine/kb/rdf/knowledgeBaseRdfSource.js';
import { RdfView } from '../../../src-main/engine/kb/rdf/RdfView.js';
import { countStatements } from '../../support/independentRdf.js';

const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-kb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('knowledgeBaseRdfSource', () => {
  it('feeds the view and the exporter from a real KnowledgeBase, and follows a document deletion', async () => {
    const kb = KnowledgeBase.open(join(dir, 'kb.sqlite'), {
      create: { name: 'odyssey', baseIri: 'urn:polyhop:kb:odyssey/' },
    });
    const addDoc = (title: string, texts: string[]) => {
      const doc = kb.documents.addDocument({
        path: `/docs/${title}.txt`,
        title,
        hash: title.padEnd(64, '0'),
        mime: 'text/plain',
        size: 10,
      });
      const chunks = kb.documents.replaceChunks(
        doc.id,
        texts.map((text, ord) => ({
          ord,
          text,
          language: 'en',
          startOffset: ord * 100,
          endOffset: ord * 100 + text.length,
          page: null,
        })),
      );
      return { doc, chunks };
    };
    const a = addDoc('Odyssey', ['Odysseus is king of Ithaca.', 'His wife is Penelope.']);
    const b = addDoc('Notes', ['Penelope weaves a shroud.']);
    const odysseus = kb.graph.upsertEntity('Odysseus', 'Person');
    const ithaca = kb.graph.upsertEntity('Ithaca', 'Place');
    const penelope = kb.graph.upsertEntity('Penelope "the faithful"', 'Person');
    const shroud = kb.graph.upsertEntity('shroud', 'Object');
    kb.graph.addTriple({ sourceId: odysseus, relation: 'KING_OF', targetId: ithaca, chunkId: a.chunks[0]!.id });
    const wife = kb.graph.addTriple({
      sourceId: odysseus,
      relation: 'HAS_WIFE',
      targetId: penelope,
      chunkId: a.chunks[1]!.id,
    });
    kb.graph.addTriple({ sourceId: penelope, relation: 'WEAVES', targetId: shroud, chunkId: b.chunks[0]!.id });
    kb.graph.setTripleDescription(wife, 'Penelope is the wife of Odysseus.');

    const source = knowledgeBaseRdfSource(kb);
    const file = join(dir, 'kb.ttl');
    const written = await exportRdf(source, file);
    expect(await countStatements(file)).toBe(written.quads);

    const view = RdfView.open(source);
    try {
      await view.load();
      const q = `PREFIX ph: <https://polyhop.app/ontology#> SELECT ?name WHERE { ?e a ph:Entity ; ph:hasName ?name } ORDER BY ?name`;
      expect((await view.query(q)).rows.map((r) => r.name)).toEqual([
        'Ithaca',
        'Odysseus',
        'Penelope "the faithful"',
        'shroud',
      ]);
      const chain = await view.query(
        'PREFIX ph: <https://polyhop.app/ontology#> SELECT ?next WHERE { ?c ph:hasRecordId ?id ; ph:hasNext/ph:hasContent ?next . FILTER(?id = ' +
          a.chunks[0]!.id +
          ') }',
      );
      expect(chain.rows).toEqual([{ next: 'His wife is Penelope.' }]);

      const removal = kb.documents.deleteDocument(b.doc.id);
      expect(removal.removedEntityIds).toContain(shroud);
      await view.documentRemoved(b.doc.id);
      expect((await view.query(q)).rows.map((r) => r.name)).toEqual(['Ithaca', 'Odysseus', 'Penelope "the faithful"']);
      const fresh = RdfView.open(source);
      await fresh.load();
      expect(view.status.triples).toBe(fresh.status.triples);
      await fresh.dispose();
    } finally {
      await view.dispose();
      kb.close();
    }
  });
});
