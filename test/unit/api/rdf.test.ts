import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, KbInfo, SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

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
    const count = await call<SparqlResult>(engine, 'sparql:query', { kb: 'mse', query: 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }' });
    expect(count.kind).toBe('select');
    const any = await call<SparqlResult>(engine, 'sparql:query', { kb: 'mse', query: 'ASK { ?s ?p ?o }' });
    expect(any.boolean).toBe(true);
    const update = await engine.call('sparql:query', { kb: 'mse', query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }' });
    expect(update.ok).toBe(false);
  });

  it('exports Turtle that an independent parser reads with the original statement count', async () => {
    const file = join(out, 'mse.ttl');
    const job = await runJobToEnd(engine, 'rdf:export', { kb: 'mse', format: 'turtle', scope: { kind: 'all' }, outputPath: file });
    expect(job.error).toBeNull();
    const rapper = execFileSync('rapper', ['-i', 'turtle', '-c', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const counted = Number(/returned (\d+) triples/.exec(rapper)?.[1] ?? execFileSync('sh', ['-c', `rapper -i turtle -c '${file}' 2>&1`], { encoding: 'utf8' }).match(/returned (\d+) triples/)?.[1]);
    expect(counted).toBeGreaterThanOrEqual(8166);
  });

  it('retrieves over the imported graph with the hyp strategy (retrieval only: no model)', async () => {
    const job = await runJobToEnd(engine, 'qa:ask', { kb: 'mse', question: 'Which organisation is Ebrahim Norouzi affiliated with?', strategy: 'hyp', retrievalOnly: true });
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
});
