import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentPage, JobProgress, SparqlResult, StoreStatus } from '../../src-main/engine/api/contract.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { PH } from '../../src-main/engine/kb/rdf/vocabulary.js';
import { CORPUS_DIR, CORPUS_FILES, CorpusEmbedder, corpusRules } from '../support/corpusScript.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../support/tempEngine.js';
import { type VirtuosoInstance, startVirtuoso } from '../support/virtuoso.js';
import { virtuosoStoreSetArgs } from '../support/virtuosoCli.js';
import { polyhopInProcess, type CliRun } from '../support/cliInProcess.js';
import { StoreProxy } from '../support/storeProxy.js';

const MSE_KG = resolve(repoRoot, '..', 'shared', 'data', 'mse-kg', 'Output.ttl');

/** Every statement of a result of `SELECT ?s ?p ?o`, as comparable text. */
function statements(result: SparqlResult): string[] {
  return result.rows.map((r) => `${r.s} ${r.p} ${r.o}`).sort();
}

const ALL = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }';
const COUNTS = [
  'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
  `PREFIX ph: <${PH}> SELECT (COUNT(DISTINCT ?e) AS ?n) WHERE { ?e a ph:Entity }`,
  `PREFIX ph: <${PH}> SELECT (COUNT(*) AS ?n) WHERE { ?t a ph:Triple ; ph:hasSource ?a ; ph:hasTarget ?b . ?u a ph:Triple ; ph:hasSource ?b }`,
];

describe('an external SPARQL store: Virtuoso Open Source', () => {
  let virtuoso: VirtuosoInstance;
  let proxy: StoreProxy;
  let engine: Engine;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    virtuoso = await startVirtuoso();
    proxy = await StoreProxy.start(virtuoso.httpPort);
    ({ engine, dispose } = await tempEngine({ llm: new ScriptedLlm(corpusRules()), embedder: new CorpusEmbedder() }));
  });
  afterAll(async () => {
    await dispose?.();
    await proxy?.close();
    await virtuoso?.dispose();
  });

  const storeOf = (kb: string, viaProxy = false): Record<string, unknown> => {
    const base = viaProxy ? `http://127.0.0.1:${proxy.port}` : `http://127.0.0.1:${virtuoso.httpPort}`;
    return {
      kb,
      queryUrl: `${base}/sparql`,
      updateUrl: `${base}/sparql-auth`,
      graphStoreUrl: `${base}/sparql-graph-crud-auth`,
      auth: { kind: 'digest', username: virtuoso.user, password: virtuoso.password },
      batchQuads: 1000,
    };
  };

  const query = (kb: string, q: string, target: 'view' | 'store', maxRows = 1000): Promise<SparqlResult> =>
    call<SparqlResult>(engine, 'sparql:query', { kb, query: q, target, maxRows, timeoutMs: 120_000 });

  async function expectStoreAgrees(kb: string): Promise<void> {
    // Against a view built afresh from the records: both must equal what the records say now.
    await engine.kbs.get(kb).rdf.rebuild();
    for (const q of COUNTS)
      expect(await query(kb, q, 'store'), q).toMatchObject({ rows: (await query(kb, q, 'view')).rows });
  }

  async function waitForStoreJob(kb: string): Promise<void> {
    for (;;) {
      const status = await call<StoreStatus>(engine, 'store:show', { kb });
      if (!status.jobId) return;
      await engine.jobs.settled(status.jobId);
    }
  }

  it('publishes the MSE-KG import, and the store answers the counts the in-memory view does', async () => {
    await call(engine, 'kb:create', { name: 'mse' });
    expect((await runJobToEnd(engine, 'rdf:import', { kb: 'mse', inputPath: MSE_KG })).error).toBeNull();
    const status = await call<StoreStatus>(engine, 'store:set', storeOf('mse'));
    expect(status.config?.auth).toEqual({ kind: 'digest', username: 'dba', hasPassword: true });
    expect(JSON.stringify(status)).not.toMatch(/"password"/);
    expect(status.sync).toMatchObject({ fullNeeded: true, publishedAt: null });

    const job = await runJobToEnd(engine, 'store:publish', { kb: 'mse' });
    expect(job.error).toBeNull();
    const sent = (job.result as { quads: number }).quads;
    expect(sent).toBeGreaterThan(8166);
    await expectStoreAgrees('mse');
    const probed = await call<StoreStatus>(engine, 'store:show', { kb: 'mse', probe: true });
    expect(probed.storeQuads).toBe(engine.kbs.get('mse').rdf.status.triples);
    expect(probed.sync).toMatchObject({ fullNeeded: false, lastError: null, pendingDocuments: 0, pendingEntities: 0 });
  });

  it('queries the store read-only by default, as the view', async () => {
    const refused = await engine.call('sparql:query', {
      kb: 'mse',
      query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
      target: 'store',
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'BAD_INPUT', message: expect.stringMatching(/updates are refused unless allowUpdate/) },
    });
    const ask = await query('mse', `PREFIX ph: <${PH}> ASK { ?e a ph:Entity }`, 'store');
    expect(ask.boolean).toBe(true);
    const graph = await query(
      'mse',
      `PREFIX ph: <${PH}> CONSTRUCT { ?e a ph:Entity } WHERE { ?e a ph:Entity } LIMIT 3`,
      'store',
    );
    expect(graph.kind).toBe('graph');
    expect(graph.turtle).toMatch(/ph:Entity/);
    const bad = await engine.call('sparql:query', { kb: 'mse', query: 'SELECT WHERE {', target: 'store' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });

  it('publishes an indexed corpus, follows a removed document, and agrees statement for statement', async () => {
    await call(engine, 'kb:create', { name: 'odyssey' });
    await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).error).toBeNull();
    await call(engine, 'store:set', storeOf('odyssey'));
    expect((await runJobToEnd(engine, 'store:publish', { kb: 'odyssey' })).error).toBeNull();
    await expectStoreAgrees('odyssey');

    const page = await call<DocumentPage>(engine, 'docs:list', { kb: 'odyssey' });
    const italian = page.rows.find((d) => d.path.endsWith('ulisse.it.txt'))!;
    await call(engine, 'docs:remove', { kb: 'odyssey', id: italian.id });
    // The removal started a sync on its own (auto-sync is on by default).
    await waitForStoreJob('odyssey');
    const status = await call<StoreStatus>(engine, 'store:show', { kb: 'odyssey' });
    expect(status.sync).toMatchObject({ lastError: null, pendingDocuments: 0, pendingEntities: 0 });
    expect(status.sync?.syncedAt).not.toBeNull();
    await expectStoreAgrees('odyssey');
    const view = statements(await query('odyssey', ALL, 'view', 100_000));
    expect(statements(await query('odyssey', ALL, 'store', 100_000))).toEqual(view);
    expect(view.join('\n')).not.toContain(`/document/${italian.id}`);

    // Added back and indexed again (its entities merge into the ones already there): the index
    // job's end starts the sync, which sends only what the journal names.
    await call(engine, 'docs:add', { kb: 'odyssey', paths: [italian.path] });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).error).toBeNull();
    await waitForStoreJob('odyssey');
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'odyssey' })).sync).toMatchObject({
      fullNeeded: false,
      lastError: null,
      pendingDocuments: 0,
      pendingEntities: 0,
    });
    await expectStoreAgrees('odyssey');
    const readded = statements(await query('odyssey', ALL, 'view', 100_000));
    expect(readded.join('\n')).toMatch(/Ulisse|Itaca/);
    expect(statements(await query('odyssey', ALL, 'store', 100_000))).toEqual(readded);
  });

  it('a store gone mid-sync leaves a resumable state and a clear error; after it is back the next sync completes', async () => {
    await call(engine, 'kb:create', { name: 'cut' });
    await call(engine, 'docs:add', { kb: 'cut', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'cut' })).error).toBeNull();
    await call(engine, 'store:set', { ...storeOf('cut', true), autoSync: false });
    expect((await runJobToEnd(engine, 'store:publish', { kb: 'cut' })).error).toBeNull();

    const page = await call<DocumentPage>(engine, 'docs:list', { kb: 'cut' });
    for (const doc of page.rows.filter((d) => !d.path.endsWith('odysseus.en.md')))
      await call(engine, 'docs:remove', { kb: 'cut', id: doc.id });
    const before = await call<StoreStatus>(engine, 'store:show', { kb: 'cut' });
    expect(before.sync?.pendingDocuments).toBe(3);

    // The store goes away once the documents went out, before their entities did.
    const off = engine.onEvent((e) => {
      if (
        e.name === 'job:progress' &&
        (e.payload as JobProgress).kb === 'cut' &&
        (e.payload as JobProgress).stage === 'documents'
      )
        proxy.failing = true;
    });
    const failed = await runJobToEnd(engine, 'store:sync', { kb: 'cut' });
    off();
    await virtuoso.stop();
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('STORE_ERROR');
    expect(failed.error?.message).toMatch(
      new RegExp(`SPARQL store http://127\\.0\\.0\\.1:${proxy.port} could not be reached`),
    );
    const cut = await call<StoreStatus>(engine, 'store:show', { kb: 'cut' });
    expect(cut.sync?.lastError).toMatch(/could not be reached/);
    expect(cut.sync?.pendingEntities).toBeGreaterThan(0);

    // Still gone: the state stays as it was.
    proxy.failing = false;
    const refused = await runJobToEnd(engine, 'store:sync', { kb: 'cut' });
    expect(refused.status).toBe('failed');
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'cut' })).sync?.pendingEntities).toBe(
      cut.sync?.pendingEntities,
    );

    await virtuoso.start();
    const resumed = await runJobToEnd(engine, 'store:sync', { kb: 'cut' });
    expect(resumed.error).toBeNull();
    expect(resumed.result).toMatchObject({ mode: 'incremental' });
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'cut' })).sync).toMatchObject({
      lastError: null,
      pendingDocuments: 0,
      pendingEntities: 0,
    });
    await expectStoreAgrees('cut');
    expect(statements(await query('cut', ALL, 'store', 100_000))).toEqual(
      statements(await query('cut', ALL, 'view', 100_000)),
    );
  });

  it('the CLI configures, publishes, syncs and queries the store; the password is read from the environment, never printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-store-'));
    const polyhop = (...args: string[]): Promise<CliRun> => polyhopInProcess(dir, args);
    const base = `http://127.0.0.1:${virtuoso.httpPort}`;
    process.env.POLYHOP_STORE_PASSWORD = 'dba';
    try {
      expect(await polyhop('kb', 'create', 'cli')).toMatchObject({ code: 0 });
      expect(await polyhop('import', MSE_KG, '--kb', 'cli')).toMatchObject({ code: 0 });
      const set = await polyhop(...virtuosoStoreSetArgs('cli', base, '--graph', 'http://example.org/polyhop/cli'));
      expect(set).toMatchObject({ code: 0, err: '' });
      expect(set.out).toMatch(/auth: +digest as dba \(password set\)/);
      expect(set.out).toMatch(/full publish due/);
      const published = await polyhop('store', 'publish', '--kb', 'cli');
      expect(published).toMatchObject({ code: 0, err: '' });
      expect(published.out).toMatch(/Published [\d,]+ quads/);
      expect((await polyhop('store', 'sync', '--kb', 'cli')).out).toMatch(/Synced 0 documents and 0 entities/);
      const shown = await polyhop('--json', 'store', 'show', '--kb', 'cli', '--probe');
      const status = JSON.parse(shown.out) as StoreStatus;
      expect(status.storeQuads).toBeGreaterThan(8166);
      expect(shown.out).not.toMatch(/"password"/);
      const q = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
      const inStore = JSON.parse((await polyhop('--json', 'sparql', q, '--kb', 'cli', '--store')).out) as SparqlResult;
      const inView = JSON.parse((await polyhop('--json', 'sparql', q, '--kb', 'cli')).out) as SparqlResult;
      expect(inStore.rows).toEqual(inView.rows);
      expect(Number(inStore.rows[0]!.n)).toBe(status.storeQuads);
      expect((await polyhop('store', 'remove', '--kb', 'cli')).out).toMatch(/Removed/);
      expect((await polyhop('sparql', q, '--kb', 'cli', '--store')).err).toMatch(/no external SPARQL store/);
    } finally {
      delete process.env.POLYHOP_STORE_PASSWORD;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
