import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, KbInfo, SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { importRdfIntoKb } from '../../../src-main/engine/api/importRdfIntoKb.js';
import type { EmbedOptions } from '../../../src-main/engine/models/Embedder.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { countStatements } from '../../support/independentRdf.js';

const MSE_KG = resolve(repoRoot, '..', 'shared', 'data', 'mse-kg', 'Output.ttl');

describe('RDF through the Api', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const out = mkdtempSync(join(tmpdir(), 'polyhop-rdf-'));

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine({ embedder: new NgramEmbedder(128) }));
    await call(engine, 'kb:create', { name: 'mse' });
    await call(engine, 'kb:create', { name: 'broken' });
  });
  afterAll(() => dispose());

  it('imports the MSE-KG graph as entities and verbalised triples, without any LLM', async () => {
    const job = await runJobToEnd(engine, 'rdf:import', { kb: 'mse', inputPath: MSE_KG });
    expect(job.error).toBeNull();
    expect(job.result).toMatchObject({ quads: 8166 });
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'mse' });
    expect(info.tripleCount).toBeGreaterThan(1000);
    expect(info.entityCount).toBeGreaterThan(500);
  });

  it('answers SPARQL over the original statements and refuses updates', async () => {
    const count = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'mse',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }',
    });
    expect(count.kind).toBe('select');
    const any = await call<SparqlResult>(engine, 'sparql:query', { kb: 'mse', query: 'ASK { ?s ?p ?o }' });
    expect(any.boolean).toBe(true);
    const update = await engine.call('sparql:query', { kb: 'mse', query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }' });
    expect(update.ok).toBe(false);
  });

  it('exports Turtle that an independent parser reads with the original statement count', async () => {
    const file = join(out, 'mse.ttl');
    const job = await runJobToEnd(engine, 'rdf:export', {
      kb: 'mse',
      format: 'turtle',
      scope: { kind: 'all' },
      outputPath: file,
    });
    expect(job.error).toBeNull();
    expect(await countStatements(file)).toBeGreaterThanOrEqual(8166);
  });

  it('retrieves over the imported graph with the hyp strategy (retrieval only: no model)', async () => {
    const job = await runJobToEnd(engine, 'qa:ask', {
      kb: 'mse',
      question: 'Which organisation is Ebrahim Norouzi affiliated with?',
      strategy: 'hyp',
      retrievalOnly: true,
    });
    expect(job.error).toBeNull();
    const answer = job.result as Answer;
    expect(answer.retrievalOnly).toBe(true);
    expect(answer.evidence.map((e) => e.text).join('\n')).toMatch(/Norouzi/);
  });

  it('a malformed file is refused with its line and column and imports nothing', async () => {
    const bad = join(out, 'bad.ttl');
    writeFileSync(bad, '@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e "unterminated .\n');
    const job = await runJobToEnd(engine, 'rdf:import', { kb: 'broken', inputPath: bad });
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('BAD_INPUT');
    expect(job.error?.message).toMatch(/bad\.ttl:3:\d+/);
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'broken' });
    expect(info.tripleCount).toBe(0);
    expect(info.entityCount).toBe(0);
  });

  const CITIES = `@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:paris rdfs:label "Paris" ; skos:altLabel "City of Light", "Lutetia" ; a ex:City ; ex:population 2100000 ; ex:twinnedWith ex:rome .
ex:rome rdfs:label "Rome" ; a ex:City ; ex:population 2800000 .
ex:lutetia rdfs:label "Lutetia" ; a ex:Settlement .
ex:parisTX rdfs:label "Paris" ; a ex:City ; ex:population 24000 .
ex:City rdfs:label "city" .
ex:paris ex:twinnedWith ex:rome .
`;

  it('keeps literal statements retrievable (BM25, dense, hyp), names unique and aliases searchable', async () => {
    const file = join(out, 'cities.ttl');
    writeFileSync(file, CITIES);
    await call(engine, 'kb:create', { name: 'cities' });
    const job = await runJobToEnd(engine, 'rdf:import', { kb: 'cities', inputPath: file });
    expect(job.error).toBeNull();
    const { kb } = engine.kbs.get('cities');
    const [top] = kb.graph.getTriples(kb.textIndex.bm25('triple', 'population 2800000', 1).map((h) => h.id));
    expect(`${top?.sourceName} ${top?.relation} ${top?.targetName}`).toBe('Rome population 2800000');
    const [vector] = await new NgramEmbedder(128).embed(['Paris population 2100000']);
    const [nearest] = kb.graph.getTriples(kb.vectors.knn('triple', vector as Float32Array, 1).map((h) => h.id));
    expect(nearest).toMatchObject({ sourceName: 'Paris', relation: 'population', targetName: '2100000' });
    // Two nodes labelled "Paris" get two names; "Lutetia" stays the other node's name, not an alias.
    expect(kb.graph.findEntityByName('Paris (parisTX)')?.type).toBe('city');
    expect(kb.graph.findEntityByName('City of Light')?.name).toBe('Paris');
    expect(kb.graph.findEntityByName('Lutetia')?.type).toBe('Settlement');
    expect(kb.graph.searchEntities('light').map((e) => e.name)).toEqual(['Paris']);
    // A repeated statement is one triple; every entity and triple has its vector.
    expect(
      kb.graph
        .triplesOfEntity(kb.graph.findEntityByName('Paris')?.id ?? 0, 'out')
        .filter((t) => t.relation === 'twinned with'),
    ).toHaveLength(1);
    const stats = kb.stats();
    expect(stats.vectors.entity_name).toBe(stats.entities);
    expect(stats.vectors.triple).toBe(stats.triples);
    expect(kb.textIndex.missingText('triple')).toEqual([]);
    const answer = (
      await runJobToEnd(engine, 'qa:ask', {
        kb: 'cities',
        question: 'What is the population of Rome?',
        strategy: 'hyp',
        retrievalOnly: true,
      })
    ).result as Answer;
    expect(answer.evidence.map((e) => e.text).join('\n')).toMatch(/Rome population 2800000/);
  });

  it('removes everything it wrote when embedding fails or the job is cancelled, and the KB imports again afterwards', async () => {
    const file = join(out, 'cities-again.ttl');
    writeFileSync(file, CITIES);
    await call(engine, 'kb:create', { name: 'undone' });
    const session = engine.kbs.get('undone');
    class FailingEmbedder extends NgramEmbedder {
      override async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
        if (this.calls >= 2) throw new Error('embedder crashed');
        return super.embed(texts, options);
      }
    }
    const onProgress = () => undefined;
    const failed = await importRdfIntoKb(session, new FailingEmbedder(128), file, {
      signal: new AbortController().signal,
      onProgress,
      embedBatchSize: 4,
    }).catch((e: unknown) => e);
    expect((failed as Error).message).toBe('embedder crashed');
    const empty = () => {
      const stats = session.kb.stats();
      expect({ entities: stats.entities, triples: stats.triples, ...stats.vectors }).toEqual({
        entities: 0,
        triples: 0,
        chunk: 0,
        chunk_original: 0,
        entity_name: 0,
        entity_summary: 0,
        entity_partial: 0,
        triple: 0,
        passage: 0,
      });
      expect(session.kb.textIndex.bm25('triple', 'population', 5)).toEqual([]);
      expect(session.kb.graph.searchEntities('Paris')).toEqual([]);
      expect([...session.kb.importedStatements.iterateImportedStatements()]).toEqual([]);
    };
    empty();
    const controller = new AbortController();
    const cancelled = await importRdfIntoKb(session, new NgramEmbedder(128), file, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.stage === 'embed') controller.abort(new Error('cancelled by the user'));
      },
      embedBatchSize: 4,
    }).catch((e: unknown) => e);
    expect((cancelled as Error).message).toBe('cancelled by the user');
    empty();
    const result = await importRdfIntoKb(session, new NgramEmbedder(128), file, {
      signal: new AbortController().signal,
      onProgress,
    });
    expect(result.triples).toBeGreaterThan(5);
    expect(session.kb.stats().vectors.triple).toBe(session.kb.stats().triples);
    expect(session.kb.textIndex.bm25('triple', 'population 24000', 1)).toHaveLength(1);
  });
});
