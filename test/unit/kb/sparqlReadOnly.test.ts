import { describe, expect, it } from 'vitest';
import { checkedSparqlForm, vendorCall } from '../../../src-main/engine/kb/rdf/sparqlForm.js';

const WHY = 'this target is read-only';

describe('read-only SPARQL refuses vendor functions that write (issue 24 point 14)', () => {
  it("refuses the issue's SELECT (bif:exec('SPARQL INSERT DATA {…}') AS ?x) WHERE {}", () => {
    const q = "SELECT (bif:exec('SPARQL INSERT DATA { <urn:a> <urn:b> <urn:c> }') AS ?x) WHERE {}";
    expect(vendorCall(q)).toBe('bif:exec');
    expect(() => checkedSparqlForm(q, false, WHY)).toThrow(/vendor function bif:exec/u);
    expect(checkedSparqlForm(q, true, WHY)).toBe('select');
  });

  it('refuses sql: calls and IRIs naming bif:, even after an IRI holding # or a comment holding a quote', () => {
    expect(vendorCall('PREFIX ex: <http://x/#> SELECT (sql:run(1) AS ?x) WHERE {}')).toBe('sql:run');
    expect(vendorCall("# it's a comment\nSELECT (<bif:exec>('x') AS ?x) WHERE {}")).toBe('bif:exec');
  });

  it('accepts bif: text inside strings, comments and other IRIs', () => {
    const q = "PREFIX ex: <http://e/bif:exec>\n# bif:exec here\nSELECT ?s WHERE { ?s ?p 'bif:exec(1)' }";
    expect(vendorCall(q)).toBeNull();
    expect(checkedSparqlForm(q, false, WHY)).toBe('select');
  });
});
