import { describe, expect, it } from 'vitest';
import { checkedSparql, checkedSparqlForm } from '../../../src-main/engine/kb/rdf/sparqlForm.js';

const WHY = 'this target is read-only';
const refusal = (q: string): string => {
  try {
    checkedSparqlForm(q, false, WHY);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('read-only SPARQL is checked on the parsed request (issue 24 point 14)', () => {
  it("refuses the issue's SELECT (bif:exec('SPARQL INSERT DATA {…}') AS ?x) WHERE {}, and runs it when unlocked", () => {
    const q = "SELECT (bif:exec('SPARQL INSERT DATA { <urn:a> <urn:b> <urn:c> }') AS ?x) WHERE {}";
    expect(refusal(q)).toMatch(/function bif:exec is not a SPARQL built-in/u);
    expect(checkedSparqlForm(q, true, WHY)).toBe('select');
  });

  it('refuses a vendor call however it is spelt or wherever it sits', () => {
    for (const [q, fn] of [
      ["PREFIX b: <bif:> SELECT (b:exec('x') AS ?x) WHERE {}", 'bif:exec'],
      ['SELECT ?x WHERE { BIND(<sql:run>(1) AS ?x) }', 'sql:run'],
      ['SELECT ?s WHERE { ?s ?p ?o FILTER(<urn:proc>(?o)) }', '<urn:proc>'],
      ['SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } ORDER BY bif:exec(?o) } }', 'bif:exec'],
      ['SELECT ?s WHERE { ?s ?p ?o } GROUP BY ?s HAVING (sql:f(?s))', 'sql:f'],
      ['ASK { ?s ?p ?o FILTER EXISTS { ?s ?q ?r FILTER(bif:exec(?r)) } }', 'bif:exec'],
      ['CONSTRUCT { ?s ?p ?x } WHERE { ?s ?p ?o BIND(vendor:f(?o) AS ?x) }', 'vendor:f'],
      ['SELECT (<urn:agg>(DISTINCT ?o) AS ?a) WHERE { ?s ?p ?o } GROUP BY ?s', '<urn:agg>'],
      // Virtuoso: DB.DBA.TTLP, its Turtle loader.
      ["SELECT (<TTLP>('<urn:a> <urn:b> <urn:c> .', '', 'urn:g') AS ?x) WHERE {}", '<TTLP>'],
    ] as const)
      expect(refusal(q), q).toContain(`function ${fn} is not a SPARQL built-in`);
  });

  it('refuses every update form and text the parser cannot prove read-only (a query with an update after it)', () => {
    for (const q of [
      'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
      '# comment\nPREFIX ex: <http://e/> DELETE WHERE { ?s ex:p ?o }',
      'WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }',
      'CLEAR GRAPH <urn:g>',
      'LOAD <http://e/x.ttl>',
    ])
      expect(refusal(q), q).toMatch(/updates are refused unless allowUpdate/u);
    expect(refusal('SELECT * WHERE {} ; INSERT DATA { <urn:a> <urn:b> <urn:c> }')).toMatch(/Parse error on line 1/u);
    expect(refusal('SELECT WHERE {')).toMatch(/^sparql: Parse error on line 1/u);
  });

  it('accepts built-ins, XSD casts, bif: as a predicate, and bif: text in strings, comments and IRIs', () => {
    for (const q of [
      "PREFIX ex: <http://e/bif:exec>\n# bif:exec here\nSELECT ?s WHERE { ?s ?p 'bif:exec(1)' }",
      'SELECT (COUNT(*) AS ?n) (xsd:integer(STR(1)) AS ?i) (STRLEN(?o) AS ?l) WHERE { ?s ?p ?o } GROUP BY ?o',
      'SELECT ?s WHERE { ?s bif:contains "word" }',
      'SELECT * WHERE { ?s rdfs:label ?l FILTER(REGEX(?l, "x") && LANG(?l) = "en") }',
      'SELECT * WHERE { << ?s ?p ?o >> ?q ?r }',
    ])
      expect(refusal(q), q).toBe('accepted');
    expect(checkedSparql('DESCRIBE <urn:x>', false, WHY).form).toBe('describe');
  });

  it('unlocked, text the parser refuses goes to the target by its first keyword', () => {
    expect(checkedSparql('DEFINE input:inference "x" SELECT * WHERE { ?s ?p ?o }', true, WHY).form).toBe('select');
    // Virtuoso's log pragma before an update: sent as an update, not refused as bad syntax.
    expect(checkedSparql('DEFINE sql:log-enable 2 DELETE WHERE { ?s ?p ?o }', true, WHY).form).toBe('update');
  });
});
