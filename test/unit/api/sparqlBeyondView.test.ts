import { describe, expect, it } from 'vitest';
import { beyondViewLimit } from '../../../src-main/engine/api/handlers/rdf.js';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { RdfView } from '../../../src-main/engine/kb/rdf/RdfView.js';
import { syntheticSource } from '../kb/rdfFixtures.js';

describe('a graph past the in-memory view', () => {
  it("offers the KB's store when one is configured, and how to configure one when not, instead of only export", async () => {
    const view = RdfView.open(
      syntheticSource({ seed: 3, entities: ['A', 'B', 'C'], documents: 2, chunksPerDocument: 5, triples: 3 }),
      { maxQuads: 10 },
    );
    try {
      const refusal = await view.query('SELECT * WHERE { ?s ?p ?o }').catch((e: unknown) => e);
      expect(refusal).toMatchObject({ code: 'UNSUPPORTED' });
      const configured = beyondViewLimit(refusal, 'big', true) as PolyhopError;
      expect(configured.message).toMatch(
        /^RDF view: the RDF view holds at most 10 statements in memory and this knowledge base makes about [\d,]+; publish it to its SPARQL store \(`polyhop store publish --kb "big"`, or Publish on the SPARQL screen\) and query the store there/,
      );
      expect(configured.message).not.toMatch(/export/);
      const unconfigured = beyondViewLimit(refusal, 'big', false) as PolyhopError;
      expect(unconfigured.message).toMatch(
        /; publish it to an external SPARQL store \(configure one with `polyhop store set --kb "big" --query-url …` or on the SPARQL screen, then publish\) and query it there, or export it$/,
      );
      expect(unconfigured).toMatchObject({ code: 'UNSUPPORTED', details: { maxQuads: 10, storeConfigured: false } });
      // Other errors pass as they are.
      const other = new PolyhopError('BAD_INPUT', 'sparql: x');
      expect(beyondViewLimit(other, 'big', true)).toBe(other);
    } finally {
      await view.dispose();
    }
  });
});
