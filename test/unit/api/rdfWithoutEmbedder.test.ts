import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Answer,
  EntitySummaryView,
  KbInfo,
  KbSummary,
  SparqlResult,
} from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import type { InjectedModels } from '../../../src-main/engine/api/ModelRuntime.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { SMALL_GRAPH, smallGraphTurtle } from '../../support/smallGraph.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/**
 * Issue 13: a newcomer with no model imports an existing graph and uses it (SPARQL, search by
 * name, export); the KB says its vectors are missing and retrieval says why it cannot answer;
 * once an embedding model is chosen, `kb:reembed` fills the vectors and retrieval answers.
 */
const PEOPLE = SMALL_GRAPH.people;

describe('RDF import with no embedding model', () => {
  const models: InjectedModels = {};
  let engine: Engine;
  let dispose: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-noembed-'));
  const file = join(dir, 'Output.ttl');
  const { turtle, statements } = smallGraphTurtle();

  beforeAll(async () => {
    writeFileSync(file, turtle);
    // No embedder injected and none selected: the engine of a fresh install.
    ({ engine, dispose } = await tempEngine(models));
    await call(engine, 'kb:create', { name: 'mse' });
  });
  afterAll(async () => {
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the graph and records that its vectors are missing', async () => {
    const job = await runJobToEnd(engine, 'rdf:import', { kb: 'mse', inputPath: file });
    expect(job.error).toBeNull();
    expect(job.result).toMatchObject({ quads: statements });
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'mse' });
    expect(info.embedder).toBeNull();
    expect(info.entityCount).toBeGreaterThanOrEqual(PEOPLE + SMALL_GRAPH.organisations.length); // and the classes
    // Every entity name and triple waits for its vector.
    expect(info.missingVectors).toBe(info.entityCount + info.tripleCount);
    expect((job.result as { missingVectors: number }).missingVectors).toBe(info.missingVectors);
    const [listed] = await call<KbSummary[]>(engine, 'kb:list', {});
    expect(listed).toMatchObject({ name: 'mse', embedder: null, missingVectors: info.missingVectors });
  });

  it('answers SPARQL, searches by name and exports without a model', async () => {
    const count = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'mse',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?person <https://schema.org/affiliation> ?org }',
    });
    expect(count.kind).toBe('select');
    expect(count.rows[0]!.n).toMatch(new RegExp(`^"?${PEOPLE}\\b`));
    const found = await call<EntitySummaryView[]>(engine, 'graph:search', { kb: 'mse', query: 'Number7' });
    expect(found.map((e) => e.name)).toContain('Researcher Number7 Quartz');

    const out = join(dir, 'export.nt');
    const job = await runJobToEnd(engine, 'rdf:export', {
      kb: 'mse',
      format: 'ntriples',
      scope: { kind: 'all' },
      outputPath: out,
    });
    expect(job.error).toBeNull();
    const parsed = new Parser({ format: 'N-Triples' }).parse(readFileSync(out, 'utf8'));
    expect(parsed.length).toBe((job.result as { quads: number }).quads);
    expect(parsed.length).toBeGreaterThanOrEqual(statements);
  });

  it.each(['hyp', 'dr', 'vector'] as const)('%s says the vectors are missing and how to add them', async (strategy) => {
    // Even with an embedder loaded but the KB not yet embedded, it must not answer from nothing.
    models.embedder = strategy === 'vector' ? new NgramEmbedder(128) : undefined;
    const job = await runJobToEnd(engine, 'qa:ask', {
      kb: 'mse',
      question: 'Which organisation is Researcher Number7 Quartz affiliated with?',
      strategy,
      retrievalOnly: true,
    });
    delete models.embedder;
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('CONFLICT');
    expect(job.error?.message).toMatch(/no vectors yet .*imported without an embedding model/);
    expect(job.error?.message).toContain('polyhop kb reembed mse');
    // Asking recorded nothing: the KB still says its vectors are missing.
    expect((await call<KbInfo>(engine, 'kb:info', { kb: 'mse' })).embedder).toBeNull();
  });

  it('embeds the missing vectors once an embedding model is chosen, and hyp then answers', async () => {
    models.embedder = new NgramEmbedder(128);
    const job = await runJobToEnd(engine, 'kb:reembed', { kb: 'mse' });
    expect(job.error).toBeNull();
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'mse' });
    expect(info.embedder).toEqual({ identity: 'test-ngram-128', dimension: 128 });
    expect(info.missingVectors).toBe(0);
    expect(engine.kbs.get('mse').kb.vectors.countMissingVectors()).toBe(0);
    expect(job.result).toEqual({ vectors: info.entityCount + info.tripleCount });

    const asked = await runJobToEnd(engine, 'qa:ask', {
      kb: 'mse',
      question: 'Which organisation is Researcher Number7 Quartz affiliated with?',
      strategy: 'hyp',
      retrievalOnly: true,
    });
    expect(asked.error).toBeNull();
    const answer = asked.result as Answer;
    expect(answer.evidence.map((e) => e.text).join('\n')).toMatch(/Number7 Quartz/);
  });
});
