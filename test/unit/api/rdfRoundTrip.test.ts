import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Parser, type Quad } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { ontologyTurtle } from '../../support/ontologyTurtle.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/** Statements as comparable lines (blank-node labels differ between parsers, so they are blanked). */
function statements(text: string, format: string, baseIRI?: string): string[] {
  const quads: Quad[] = new Parser({ format, ...(baseIRI ? { baseIRI } : {}) }).parse(text);
  const term = (t: Quad['subject'] | Quad['object'] | Quad['graph']): string =>
    t.termType === 'BlankNode' ? '_:' : t.id;
  return quads.map((q) => [q.subject, q.predicate, q.object, q.graph].map(term).join(' ')).sort();
}

/** A graph with relative IRIs, language tags, datatypes, blank nodes and an ontology-size body. */
const RELATIVE = `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<people/ada> rdfs:label "Ada Lovelace"@en , "Ada"@it ; <knows> <people/charles> ; <born> "1815-12-10"^^xsd:date .
<people/charles> rdfs:label "Charles Babbage" ; <designed> [ rdfs:label "Analytical Engine" ; <year> 1837 ] .
<#here> <seeAlso> <../elsewhere/page.html> .
`;

describe('RDF round trips (issue 17 #8)', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-roundtrip-'));
  const relative = join(dir, 'relative.ttl');
  const ontology = join(dir, 'ontology.ttl');

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine({ embedder: new NgramEmbedder(16) }));
    writeFileSync(relative, RELATIVE);
    writeFileSync(ontology, `${ontologyTurtle(3000)}${RELATIVE.replace(/<(?=[a-z#.])/g, '<http://example.org/x/')}`);
  });
  afterAll(async () => {
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function importInto(kb: string, file: string, baseIri?: string): Promise<void> {
    await call(engine, 'kb:create', { name: kb });
    const job = await runJobToEnd(engine, 'rdf:import', { kb, inputPath: file, ...(baseIri ? { baseIri } : {}) });
    expect(job.error).toBeNull();
  }

  async function exportOriginal(kb: string, format: 'turtle' | 'ntriples' | 'nquads'): Promise<string> {
    const file = join(dir, `${kb}.${format}`);
    const job = await runJobToEnd(engine, 'rdf:export', { kb, format, scope: { kind: 'original' }, outputPath: file });
    expect(job.error).toBeNull();
    return readFileSync(file, 'utf8');
  }

  it('resolves relative IRIs against the base given to the import', async () => {
    const base = 'https://example.org/graph/';
    await importInto('based', relative, base);
    const exported = statements(await exportOriginal('based', 'ntriples'), 'N-Triples');
    expect(exported).toEqual(statements(RELATIVE, 'Turtle', base));
    expect(exported.join('\n')).toContain(
      'https://example.org/graph/people/ada https://example.org/graph/knows https://example.org/graph/people/charles',
    );
    expect(exported.join('\n')).toContain(' https://example.org/elsewhere/page.html ');
    expect(exported.join('\n')).not.toContain('file:');
    const ask = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'based',
      query: 'ASK { <https://example.org/graph/#here> <https://example.org/graph/seeAlso> ?x }',
      timeoutMs: 60_000,
    });
    expect(ask.boolean).toBe(true);
  });

  it("without a base, relative IRIs resolve against the file's own URL, as before", async () => {
    await importInto('unbased', relative);
    const exported = statements(await exportOriginal('unbased', 'ntriples'), 'N-Triples');
    expect(exported).toEqual(statements(RELATIVE, 'Turtle', pathToFileURL(relative).href));
  });

  it('refuses a base that is not an absolute IRI', async () => {
    await call(engine, 'kb:create', { name: 'badbase' });
    const reply = await engine.call('rdf:import', { kb: 'badbase', inputPath: relative, baseIri: 'not a url' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });

  it('exports exactly the imported statements with scope "original", while "all" adds the KB records', async () => {
    await importInto('onto', ontology);
    const input = statements(readFileSync(ontology, 'utf8'), 'Turtle');
    expect(input.length).toBeGreaterThan(3000);
    for (const format of ['turtle', 'ntriples', 'nquads'] as const) {
      const text = await exportOriginal('onto', format);
      const parsed = statements(text, format === 'turtle' ? 'Turtle' : format === 'ntriples' ? 'N-Triples' : 'N-Quads');
      expect(parsed.length, format).toBe(input.length);
      expect(parsed, format).toEqual(input);
    }
    const all = join(dir, 'onto-all.nq');
    const job = await runJobToEnd(engine, 'rdf:export', {
      kb: 'onto',
      format: 'nquads',
      scope: { kind: 'all' },
      outputPath: all,
    });
    expect(job.error).toBeNull();
    expect(statements(readFileSync(all, 'utf8'), 'N-Quads').length).toBeGreaterThan(3 * input.length);
  });

  it('a KB built from documents has no original statements: the export is empty, not an error', async () => {
    await call(engine, 'kb:create', { name: 'empty' });
    expect(statements(await exportOriginal('empty', 'turtle'), 'Turtle')).toEqual([]);
  });
});
