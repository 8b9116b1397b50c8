import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'oxigraph';
import { afterAll, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { buildQuads, neighbourhood } from '../../../src-main/engine/kb/rdf/buildQuads.js';
import { exportRdf } from '../../../src-main/engine/kb/rdf/exportRdf.js';
import { distinctWeirdNames, syntheticSource } from './rdfFixtures.js';
import { countStatements } from '../../support/independentRdf.js';

const PH = 'https://polyhop.app/ontology#';
const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function canonical(text: string, format: string): string[] {
  return parse(text, { format })
    .map((q) => `${q.subject.toString()} ${q.predicate.toString()} ${q.object.toString()}`)
    .sort();
}

describe('exportRdf', () => {
  const source = syntheticSource({
    seed: 3,
    entities: distinctWeirdNames(11, 150, 40),
    documents: 4,
    chunksPerDocument: 5,
    triples: 400,
  });
  source.nquads = [
    '<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "imported"@en .\n<http://example.org/a> <http://example.org/p> _:b1 <http://example.org/g> .\n',
  ];

  it('writes Turtle, N-Triples and N-Quads that N3.js reads with the same statement count, no duplicates', async () => {
    let expected = 0;
    const all = new Set<string>();
    for await (const batch of buildQuads(source, { kind: 'all' })) {
      for (const q of batch)
        all.add(`${JSON.stringify(q.subject)}${JSON.stringify(q.predicate)}${JSON.stringify(q.object)}`);
      expected += batch.length;
    }
    expect(all.size).toBe(expected);
    expect(expected).toBeGreaterThan(3000);
    const progress: number[] = [];
    for (const [format, syntax] of [
      ['turtle', 'turtle'],
      ['ntriples', 'ntriples'],
      ['nquads', 'nquads'],
    ] as const) {
      const file = join(dir, `all.${format}`);
      const result = await exportRdf(source, file, {
        format,
        batchSize: 500,
        onProgress: (p) => progress.push(p.quads),
      });
      expect(result.quads).toBe(expected);
      expect(await countStatements(file, syntax)).toBe(expected);
    }
    expect(progress.length).toBeGreaterThan(3);
    // Same statements through Oxigraph: Turtle (prefixed names, groups) equals N-Triples.
    const turtle = readFileSync(join(dir, 'all.turtle'), 'utf8');
    expect(turtle).toContain('@prefix ph: <https://polyhop.app/ontology#> .');
    expect(turtle).toMatch(/entity:\S+ a ph:Entity/);
    expect(canonical(turtle, 'text/turtle')).toEqual(
      canonical(readFileSync(join(dir, 'all.ntriples'), 'utf8'), 'application/n-triples'),
    );
  });

  it("states each relation's sources and targets once: ph:relatesSource and ph:relatesTarget per distinct pair", async () => {
    const predicates: string[] = [];
    for await (const batch of buildQuads(source, { kind: 'all' }))
      for (const q of batch) predicates.push(q.predicate.value);
    const triples = await source.triples();
    const pairs = (end: 'sourceId' | 'targetId') => new Set(triples.map((t) => `${t.relation} ${t[end]}`)).size;
    expect(predicates.filter((p) => p === `${PH}relatesSource`)).toHaveLength(pairs('sourceId'));
    expect(predicates.filter((p) => p === `${PH}relatesTarget`)).toHaveLength(pairs('targetId'));
    expect(pairs('sourceId')).toBeLessThan(triples.length);
  });

  it("stops an entity's neighbourhood at its triple cap, within a hop too", async () => {
    const triples = source.triples();
    const degree = (id: number) => triples.filter((t) => t.sourceId === id || t.targetId === id).length;
    const hub = [...new Set(triples.map((t) => t.sourceId))].sort((a, b) => degree(b) - degree(a))[0]!;
    expect(degree(hub)).toBeGreaterThan(4);
    expect((await neighbourhood(source, hub, 2, 4)).triples).toHaveLength(4);
  });

  it('exports one document and an entity neighbourhood', async () => {
    const docFile = join(dir, 'doc.ttl');
    const doc = await exportRdf(source, docFile, { scope: { kind: 'document', documentId: 2 } });
    expect(await countStatements(docFile)).toBe(doc.quads);
    const text = readFileSync(docFile, 'utf8');
    expect(text).toContain('document:2 a ph:Document');
    expect(text).not.toContain('document:1 ');
    expect(text).toContain('ph:hasNext');

    const hop1 = await exportRdf(source, join(dir, 'n1.ttl'), { scope: { kind: 'entity', entityId: 2, hops: 1 } });
    const hop2 = await exportRdf(source, join(dir, 'n2.ttl'), { scope: { kind: 'entity', entityId: 2, hops: 2 } });
    expect(await countStatements(join(dir, 'n2.ttl'))).toBe(hop2.quads);
    expect(hop2.quads).toBeGreaterThan(hop1.quads);
    const oneHop = source.tripleList.filter((t) => t.sourceId === 2 || t.targetId === 2).length;
    expect(
      canonical(readFileSync(join(dir, 'n1.ttl'), 'utf8'), 'text/turtle').filter((l) =>
        l.endsWith('<https://polyhop.app/ontology#Triple>'),
      ).length,
    ).toBe(oneHop);

    await expect(
      exportRdf(source, join(dir, 'none.ttl'), { scope: { kind: 'entity', entityId: 99_999, hops: 1 } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(existsSync(join(dir, 'none.ttl'))).toBe(false);
    expect(existsSync(join(dir, 'none.ttl.part'))).toBe(false);
  });

  it('reports a full disk as STORAGE_FULL and a cancel leaves no file', async () => {
    const error = await exportRdf(source, '/dev/full', { atomic: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolyhopError);
    expect((error as PolyhopError).code).toBe('STORAGE_FULL');

    const controller = new AbortController();
    const file = join(dir, 'cancelled.ttl');
    const run = exportRdf(source, file, {
      batchSize: 100,
      onProgress: () => controller.abort(),
      signal: controller.signal,
    });
    await expect(run).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(existsSync(file) || existsSync(`${file}.part`)).toBe(false);
  });
});
