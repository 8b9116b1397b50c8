import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { exportRdf } from '../../../src-main/engine/kb/rdf/exportRdf.js';
import { type ImportBatch, type ImportRdfOptions, importRdf } from '../../../src-main/engine/kb/rdf/importRdf.js';
import { MemoryRdfSource } from '../../../src-main/engine/kb/rdf/MemoryRdfSource.js';
import { countStatements } from '../../support/independentRdf.js';

const repoRoot = resolve(import.meta.dirname, '../../..');
const MSE_KG = resolve(repoRoot, '../shared/data/mse-kg/Output.ttl');
const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function importAll(file: string, options: Partial<ImportRdfOptions> = {}) {
  const batches: ImportBatch[] = [];
  const result = await importRdf(file, { ...options, onBatch: (b) => void batches.push(b) });
  return {
    result,
    batches,
    entities: batches.flatMap((b) => b.entities),
    triples: batches.flatMap((b) => b.triples),
    aliases: batches.flatMap((b) => b.aliases),
  };
}

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('importRdf', () => {
  it('imports the MSE-KG (8,166 triples) into entities and verbalised triples, and exports it back intact', async () => {
    const { result, batches, entities, triples } = await importAll(MSE_KG, { batchSize: 1000 });
    expect(result.quads).toBe(8166);
    expect(result.triples + result.labels).toBe(8166);
    expect(triples.length).toBe(result.triples);
    expect(batches.length).toBeGreaterThan(5);
    // Every triple refers to entities handed out no later than its batch.
    const keys = new Set<string>();
    for (const b of batches) {
      for (const e of b.entities) keys.add(e.key);
      for (const t of b.triples) expect(keys.has(t.sourceKey) && keys.has(t.targetKey)).toBe(true);
    }
    const byKey = new Map(entities.map((e) => [e.key, e]));
    expect(new Set(entities.map((e) => e.name.toLowerCase())).size).toBe(entities.length);
    const norouzi = byKey.get('<http://demo.fiz-karlsruhe.de/matwerk/E15879>');
    expect(norouzi?.name).toBe('Ebrahim Norouzi');
    expect(norouzi?.type).toMatch(/person/i);
    const affiliation = triples.find((t) => t.sourceKey === norouzi?.key && t.relation === 'has affiliation');
    expect(affiliation?.text).toMatch(/^Ebrahim Norouzi has affiliation FIZ Karlsruhe/);

    // The original statements survive: export of an "imported KB" carries all 8,166 of them.
    const source = new MemoryRdfSource('urn:polyhop:kb:mse/');
    source.nquads = batches.map((b) => b.nquads);
    const out = join(dir, 'mse.ttl');
    const exported = await exportRdf(source, out);
    expect(exported.quads).toBe(8166);
    expect(await countStatements(out)).toBe(8166);
  });

  // Negative syntax cases after the W3C Turtle test suite's categories.
  const bad: [string, string, number, number][] = [
    ['bad IRI (space)', '@prefix ex: <http://x/> .\nex:a ex:b <http://x/has space> .\n', 2, 11],
    [
      'bad IRI (forbidden character)',
      '<http://x/a> <http://x/b> <http://x/c> .\n\n  <http://x/a> <http://x/b> <http://x/{c}> .\n',
      3,
      29,
    ],
    [
      'bare word instead of a term',
      '<http://x/a> <http://x/b> <http://x/c> .\n\n  <http://x/a> ex <http://x/c> .\n',
      3,
      16,
    ],
    ['unterminated literal', '@prefix ex: <http://x/> .\nex:a ex:b "never closed .\nex:c ex:d ex:e .\n', 2, 11],
    ['undefined prefix', '@prefix ex: <http://x/> .\nex:a ex:b ex:c .\nex:a nope:b ex:c .\n', 3, 6],
    ['bad language tag', '<http://x/a> <http://x/b> "x"@123 .\n', 1, 30],
    ['missing dot', '<http://x/a> <http://x/b> <http://x/c>\n<http://x/a> <http://x/b> <http://x/c> .\n', 2, 1],
  ];
  for (const [label, text, line, column] of bad) {
    it(`refuses malformed Turtle with line and column: ${label}`, async () => {
      const batches: ImportBatch[] = [];
      const error = await importRdf(write(`bad-${label.replace(/\W+/g, '_')}.ttl`, text), {
        onBatch: (b) => void batches.push(b),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PolyhopError);
      expect((error as PolyhopError).code).toBe('BAD_INPUT');
      expect((error as PolyhopError).details).toMatchObject({ line, column: expect.any(Number) });
      expect(Math.abs(((error as PolyhopError).details.column as number) - column)).toBeLessThanOrEqual(12);
      expect((error as PolyhopError).message).toMatch(new RegExp(`:${line}:\\d+: `));
      expect(batches).toEqual([]); // nothing partial
    });
  }

  it('streams a large N-Triples file and reports the failing line of a late error without handing out anything', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) lines.push(`<http://x/s${i % 5000}> <http://x/p${i % 7}> "value ${i}"@en .`);
    const good = write('big.nt', `${lines.join('\n')}\n`);
    const progress: string[] = [];
    const { result } = await importAll(good, { onProgress: (p) => progress.push(p.phase) });
    expect(result.quads).toBe(30_000);
    expect(progress).toContain('validate');
    expect(progress).toContain('convert');
    const broken = write('broken.nt', `${lines.join('\n')}\n<http://x/a> <http://x/b> "unterminated .\n`);
    const batches: ImportBatch[] = [];
    const error = await importRdf(broken, { onBatch: (b) => void batches.push(b) }).catch((e: unknown) => e);
    expect((error as PolyhopError).details.line).toBe(30_001);
    expect(batches).toEqual([]);
  });

  it('imports RDF/XML and N-Quads, and refuses entity expansion bombs', async () => {
    const xml = write(
      'small.rdf',
      `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY ex "http://x/"> ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:ex="http://x/">
  <rdf:Description rdf:about="&ex;odysseus"><rdfs:label>Odysseus</rdfs:label><ex:kingOf rdf:resource="&ex;ithaca"/></rdf:Description>
  <rdf:Description rdf:about="&ex;ithaca"><rdfs:label>Ithaca</rdfs:label></rdf:Description>
</rdf:RDF>
`,
    );
    const { triples } = await importAll(xml);
    expect(triples.map((t) => t.text)).toEqual(['Odysseus king of Ithaca']);

    const nq = write(
      'g.nq',
      '<http://x/a> <http://x/b> <http://x/c> <http://x/g> .\n<http://x/a> <http://x/b> "d" .\n',
    );
    expect((await importAll(nq)).result.triples).toBe(2);

    const levels = ['<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`<!ENTITY ${String.fromCharCode(97 + i)} "${`&${prev};`.repeat(10)}">`);
    }
    const bomb = write(
      'bomb.rdf',
      `<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n${levels.join('\n')}\n]>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x/">\n<rdf:Description rdf:about="http://x/s"><ex:p>&l;</ex:p></rdf:Description>\n</rdf:RDF>\n`,
    );
    // Refused by the entity guard (its message) before expanding: expanded, 10^11 copies of its text would outlast the test.
    await expect(importAll(bomb)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/expand/),
    });

    const badXml = write(
      'bad.rdf',
      '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://x/">\n<rdf:Description rdf:about="http://x/s">\n<ex:p>a</ex:q>\n</rdf:Description>\n</rdf:RDF>\n',
    );
    const error = (await importAll(badXml).catch((e: unknown) => e)) as PolyhopError;
    expect(error.code).toBe('BAD_INPUT');
    expect(error.details.line).toBeGreaterThanOrEqual(4);
    expect(error.details.line).toBeLessThanOrEqual(5);
  });

  it('names every node once and uniquely (label collisions, literal datatypes, blank labels); aliases come last and never take a name', async () => {
    const file = write(
      'tricky.ttl',
      `@prefix ex: <http://x/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:paris rdfs:label "Paris" ; skos:altLabel "City of Light", "Lutetia", "PARIS" ; a ex:City, ex:Capital ; ex:population 2100000 .
ex:parisTX rdfs:label "paris" ; a ex:City ; ex:population "2100000" .
ex:City rdfs:label "City" .
ex:lutetia rdfs:label "Lutetia" .
ex:blank rdfs:label " " ; ex:near ex:paris .
ex:twin rdfs:label "twin of" .
ex:paris ex:twin ex:parisTX ; ex:_ ex:parisTX .
ex:paris ex:twin ex:parisTX .
`,
    );
    const { result, batches, entities, triples, aliases } = await importAll(file, { batchSize: 2 });
    const byKey = new Map(entities.map((e) => [e.key, e]));
    expect(byKey.size).toBe(entities.length); // each node handed out once
    expect(new Set(entities.map((e) => e.name.toLowerCase())).size).toBe(entities.length);
    expect(byKey.get('<http://x/paris>')).toMatchObject({ name: 'Paris', type: 'City', kind: 'resource' });
    expect(byKey.get('<http://x/parisTX>')?.name).toBe('paris (parisTX)');
    expect(byKey.get('<http://x/lutetia>')?.name).toBe('Lutetia');
    expect(byKey.get('<http://x/blank>')?.name).toBe('<http://x/blank>');
    expect(byKey.get('"2100000"^^<http://www.w3.org/2001/XMLSchema#integer>')).toMatchObject({
      name: '2100000',
      type: 'Literal',
      kind: 'literal',
    });
    expect(byKey.get('"2100000"')?.name).toBe('2100000 (string)');
    // "Lutetia" is another node's name and "PARIS" its own: only "City of Light" is left as an alias.
    expect(aliases).toEqual([{ key: '<http://x/paris>', name: 'Paris', aliases: ['City of Light'] }]);
    const firstAliasBatch = batches.findIndex((b) => b.aliases.length > 0);
    expect(batches.slice(firstAliasBatch).flatMap((b) => b.entities)).toEqual([]);
    expect(triples.map((t) => t.text)).toEqual(
      expect.arrayContaining([
        'Paris population 2100000',
        'paris (parisTX) population 2100000 (string)',
        'Paris twin of paris (parisTX)',
        'Paris http://x/ paris (parisTX)',
        'Paris type City',
      ]),
    );
    expect(triples.filter((t) => t.relation === 'twin of')).toHaveLength(2); // a repeated statement stays a statement; the KB keeps one triple
    expect(result.labels).toBe(9);
    expect(result.entities).toBe(entities.length);
  });

  // Runs in `npm test`; left out of `npm run mutation` only, whose instrumented copy counts coverage
  // per mutant on the JS heap (6.4x instead of < 5x here), so the heap ratio measures Stryker, not importRdf.
  it.skipIf(process.env['POLYHOP_MUTATION_TESTS'] !== undefined)(
    'keeps per-node state out of the JS heap: eight times the nodes, about the same heap',
    async () => {
      const gc = globalThis.gc;
      if (!gc) throw new Error('the test workers run with --expose-gc (vitest.config.ts)');
      const generate = (subjects: number): string => {
        const lines: string[] = [];
        for (let i = 0; i < subjects; i++) {
          lines.push(`<http://x/node/${i}> <http://www.w3.org/2000/01/rdf-schema#label> "Node number ${i}" .`);
          lines.push(`<http://x/node/${i}> <http://x/describedAs> "a distinct literal value, number ${i}" .`);
        }
        return write(`nodes-${subjects}.nt`, `${lines.join('\n')}\n`);
      };
      const heapAtEnd = async (subjects: number): Promise<number> => {
        const file = generate(subjects);
        let heap = 0;
        let entities = 0;
        // Measured when the last records are handed out: a map of every node would be at its largest.
        await importRdf(file, {
          nameCacheSize: 1000,
          onBatch: (b) => {
            entities += b.entities.length;
            if (b.aliases.length === 0 && entities < 2 * subjects) return;
            gc();
            heap = Math.max(heap, process.memoryUsage().heapUsed);
          },
        });
        expect(entities).toBe(2 * subjects);
        return heap;
      };
      await heapAtEnd(10_000); // warms up code and caches, so the two measurements compare like with like
      const small = await heapAtEnd(10_000);
      const large = await heapAtEnd(80_000);
      // 140k more nodes kept in a map of names alone add ~14 MB (measured with an unbounded name cache).
      expect((large - small) / 2 ** 20).toBeLessThan(5);
    },
  );
});
