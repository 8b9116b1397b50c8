import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DocumentPage,
  EntityCard,
  EntitySummaryView,
  JobProgress,
  KbInfo,
  Settings,
} from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES, CorpusEmbedder, corpusRules } from '../../support/corpusScript.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { qaSettingsFor } from '../../../src-main/engine/api/handlers/qa.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

describe('indexing through the Api', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const llm = new ScriptedLlm(corpusRules());
  const paths = CORPUS_FILES.map((f) => join(CORPUS_DIR, f));

  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine({ llm, embedder: new CorpusEmbedder() }));
    await call(engine, 'kb:create', { name: 'odyssey' });
  });
  afterAll(() => dispose());

  it('adds files, skips unchanged ones, and indexes them with progress per stage', async () => {
    const added = await call<{ added: unknown[]; unchanged: number }>(engine, 'docs:add', { kb: 'odyssey', paths });
    expect(added.added).toHaveLength(4);
    const again = await call<{ added: unknown[]; unchanged: number }>(engine, 'docs:add', { kb: 'odyssey', paths });
    expect(again).toMatchObject({ added: [], unchanged: 4 });

    const stages = new Set<string>();
    const off = engine.onEvent((e) => e.name === 'job:progress' && stages.add((e.payload as JobProgress).stage));
    const job = await runJobToEnd(engine, 'index:start', { kb: 'odyssey' });
    off();
    expect(job.error).toBeNull();
    expect(job.status).toBe('done');
    expect([...stages]).toEqual(expect.arrayContaining(['ingest', 'map', 'enrich', 'reduce']));

    // The thresholds were fitted to this embedder and recorded with the KB (Settings and `kb info` show them).
    const info = await call<KbInfo>(engine, 'kb:info', { kb: 'odyssey' });
    expect(info.calibration).toMatchObject({ embedder: new CorpusEmbedder().identity, percentile: 0.99 });
    expect(info.calibration!.mergeThreshold).toBeGreaterThan(0);
    expect(info.calibration!.mergeThreshold).toBeLessThan(0.99);
    expect((await call<Settings>(engine, 'system:getSettings', {})).thresholds).toBe('calibrated');
    // DaPT reads the calibrated τ; the paper's under 'paper'; an explicit dapt.tau wins.
    const kb = engine.kbs.get('odyssey').kb;
    expect(qaSettingsFor({ thresholds: 'calibrated', strategyParams: {} }, kb).dapt.tau).toBe(
      info.calibration!.fusionThreshold,
    );
    expect(qaSettingsFor({ thresholds: 'paper', strategyParams: {} }, kb).dapt.tau).toBe(0.8);
    expect(qaSettingsFor({ thresholds: 'calibrated', strategyParams: { 'dapt.tau': 0.5 } }, kb).dapt.tau).toBe(0.5);

    const page = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
    expect(page.rows.map((d) => [basename(d.path), d.status, d.language])).toEqual(
      expect.arrayContaining([
        ['odysseus.en.md', 'indexed', 'en'],
        ['ulisse.it.txt', 'indexed', 'it'],
      ]),
    );
  });

  it('shows the merged entity with its aliases and triples', async () => {
    const [odysseus] = await call<EntitySummaryView[]>(engine, 'graph:search', { kb: 'odyssey', query: 'Odysseus' });
    expect(odysseus?.name).toBe('Odysseus');
    const card = await call<EntityCard>(engine, 'graph:entity', { kb: 'odyssey', id: odysseus!.id });
    expect(card.aliases).toEqual(expect.arrayContaining(['Ulysses']));
    expect(card.outgoing.map((t) => `${t.relation} ${t.target}`)).toEqual(expect.arrayContaining(['KING_OF Ithaca']));
    expect(card.sourceChunks.length).toBeGreaterThan(0);
  });

  it('re-running repeats no LLM call, and removing a document removes its triples', async () => {
    const callsBefore = llm.calls.length;
    const rerun = await runJobToEnd(engine, 'index:start', { kb: 'odyssey' });
    expect(rerun.status).toBe('done');
    expect(llm.calls.length).toBe(callsBefore);

    const page = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
    const spanish = page.rows.find((d) => basename(d.path) === 'telemaco.es.txt')!;
    expect(spanish.tripleCount).toBeGreaterThan(0);
    await call(engine, 'docs:remove', { kb: 'odyssey', id: spanish.id });
    const after = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
    expect(after.rows.map((d) => basename(d.path))).not.toContain('telemaco.es.txt');
    const missing = await engine.call('docs:get', { kb: 'odyssey', id: spanish.id });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('re-indexing one document', () => {
  it('drops what was extracted from it, queues it, and the next run extracts it again from the call cache', async () => {
    const llm = new ScriptedLlm(corpusRules());
    const { engine, dispose } = await tempEngine({ llm, embedder: new CorpusEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'odyssey' });
      await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
      await runJobToEnd(engine, 'index:start', { kb: 'odyssey' });
      const before = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
      const italian = before.rows.find((d) => basename(d.path) === 'ulisse.it.txt')!;
      const queued = await call<{ added: { id: number; status: string; chunkCount: number }[] }>(
        engine,
        'docs:reindex',
        { kb: 'odyssey', id: italian.id },
      );
      expect(queued.added).toMatchObject([{ status: 'pending', chunkCount: 0 }]);
      // Its chunks come back identical, so Preprocess and Map are answered by the call cache. Enrich
      // may be asked again for its chunks: their names now resolve to entities the KB already knows
      // by alias (Ulysses → Odysseus), so a triple the English text already gave joins the existing
      // one instead of being described twice, and the chunk's triple list differs from the first run.
      const perChunk = ['ingest/summarise', 'ingest/translate', 'mder/map'];
      const extractionCalls = (): number => perChunk.reduce((n, name) => n + llm.callsOf(name).length, 0);
      const extractedBefore = extractionCalls();
      const enrichedBefore = llm.callsOf('mder/enrich').length;
      expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
      expect(extractionCalls()).toBe(extractedBefore);
      expect(llm.callsOf('mder/enrich').length - enrichedBefore).toBeLessThanOrEqual(italian.chunkCount);
      const after = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
      expect(after.rows.find((d) => basename(d.path) === 'ulisse.it.txt')).toMatchObject({
        status: 'indexed',
        chunkCount: italian.chunkCount,
        tripleCount: italian.tripleCount,
      });
    } finally {
      await dispose();
    }
  });
});

describe('adding paths that are not documents', () => {
  it('refuses devices and pipes instead of reading them forever', async () => {
    const { engine, dispose } = await tempEngine({ llm: new ScriptedLlm([]), embedder: new CorpusEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'k' });
      const result = await call<{ added: unknown[]; errors: { path: string; reason: string }[] }>(engine, 'docs:add', {
        kb: 'k',
        paths: ['/dev/zero', '/does/not/exist'],
      });
      expect(result.added).toEqual([]);
      expect(result.errors.map((e) => e.path)).toEqual(['/dev/zero', '/does/not/exist']);
      expect(result.errors[0]?.reason).toBe('not a regular file');
    } finally {
      await dispose();
    }
  });
});

describe('re-embedding with another embedding model', () => {
  it('refuses the new model until the KB is re-embedded, then rebuilds every vector', async () => {
    const first = await tempEngine({ llm: new ScriptedLlm(corpusRules()), embedder: new CorpusEmbedder() });
    await call(first.engine, 'kb:create', { name: 'odyssey' });
    await call(first.engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
    expect((await runJobToEnd(first.engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
    const before = first.engine.kbs.get('odyssey').kb.stats().vectors;
    await first.engine.dispose();

    // Same data directory, another embedder (as after `polyhop models use embedding …`).
    const { Engine } = await import('../../../src-main/engine/api/Engine.js');
    const { appPaths } = await import('../../../src-main/engine/api/paths.js');
    const { NgramEmbedder } = await import('../../support/NgramEmbedder.js');
    const second = await Engine.create({
      paths: appPaths(repoRoot, first.dataDir, join(first.dataDir, 'models')),
      models: { embedder: new NgramEmbedder(64) },
    });
    try {
      const refused = await runJobToEnd(second, 'qa:ask', {
        kb: 'odyssey',
        question: 'Odysseus',
        strategy: 'vector',
        retrievalOnly: true,
      });
      expect(refused.error?.code).toBe('CONFLICT');
      const job = await runJobToEnd(second, 'kb:reembed', { kb: 'odyssey' });
      expect(job.error).toBeNull();
      const kb = second.kbs.get('odyssey').kb;
      expect(kb.vectors.embedder()).toEqual({ identity: 'test-ngram-64', dimension: 64 });
      expect(kb.stats().vectors).toEqual(before);
      expect(kb.vectors.similarityCalibration()?.embedder).toBe('test-ngram-64');
      const answered = await runJobToEnd(second, 'qa:ask', {
        kb: 'odyssey',
        question: 'Odysseus',
        strategy: 'vector',
        retrievalOnly: true,
      });
      expect(answered.status).toBe('done');
    } finally {
      await second.dispose();
      await first.dispose();
    }
  });
});

describe('graph neighbourhood limits', () => {
  it('says truncated only when triples were left out', async () => {
    const { engine, dispose } = await tempEngine({ embedder: new CorpusEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'star' });
      const { kb } = engine.kbs.get('star');
      const hub = kb.graph.upsertEntity('Hub', 'Thing');
      for (let i = 0; i < 5; i++)
        kb.graph.addTriple({
          sourceId: hub,
          relation: 'LINKS',
          targetId: kb.graph.upsertEntity(`Leaf ${i}`, 'Thing'),
          chunkId: null,
        });
      const exact = await call<{ nodes: unknown[]; edges: unknown[]; truncated: boolean }>(
        engine,
        'graph:neighbourhood',
        { kb: 'star', id: hub, hops: 1, limit: 5 },
      );
      expect(exact).toMatchObject({ truncated: false });
      expect(exact.edges).toHaveLength(5);
      const cut = await call<{ nodes: unknown[]; edges: unknown[]; truncated: boolean }>(
        engine,
        'graph:neighbourhood',
        { kb: 'star', id: hub, hops: 1, limit: 3 },
      );
      expect(cut).toMatchObject({ truncated: true });
      expect(cut.edges).toHaveLength(3);
      expect(cut.nodes).toHaveLength(4);
    } finally {
      await dispose();
    }
  });
});
