import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SparqlResult, StoreStatus } from '../../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../../src-main/engine/api/Engine.js';
import { NgramEmbedder } from '../../../support/NgramEmbedder.js';
import { call, runJobToEnd, tempEngine } from '../../../support/tempEngine.js';

interface Recorded {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A store double that records every request and speaks just enough of the protocols: a Digest
 * challenge for requests without Authorization, 201 for Graph Store writes (it counts the
 * statements they leave in the graph), and to every query that count as `?n`.
 */
async function recordingStore(): Promise<{
  server: Server;
  base: string;
  requests: Recorded[];
  drop: { next: number };
  held: () => number;
}> {
  const requests: Recorded[] = [];
  /** How many of the next requests get their connection closed without an answer. */
  const drop = { next: 0 };
  let held = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://store');
      requests.push({ method: req.method ?? '', url, headers: req.headers, body });
      if (drop.next > 0) {
        drop.next--;
        req.socket.destroy();
        return;
      }
      // `/open`: a query endpoint that serves anyone, as Virtuoso's /sparql does.
      if (!req.headers.authorization && url.pathname !== '/open') {
        res
          .writeHead(401, { 'www-authenticate': 'Digest realm="test", nonce="abc", qop="auth", algorithm="MD5"' })
          .end();
        return;
      }
      if (url.pathname === '/gsp') {
        const statements = body.split('\n').filter((l) => l.endsWith(' .')).length;
        held = req.method === 'PUT' ? statements : held + statements;
        return void res.writeHead(201).end();
      }
      const form = new URLSearchParams(body);
      if (form.has('update')) return void res.writeHead(200).end();
      res.writeHead(200, { 'content-type': 'application/sparql-results+json' }).end(
        JSON.stringify({
          head: { vars: ['n'] },
          results: { bindings: [{ n: { type: 'literal', value: String(held) } }] },
        }),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    server,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    drop,
    held: () => held,
  };
}

const CITIES = `@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:paris rdfs:label "Paris" ; a ex:City ; ex:twinnedWith ex:rome ; ex:population 2100000 .
ex:rome rdfs:label "Rome" ; a ex:City ; ex:population 2800000 .
ex:lyon rdfs:label "Lyon" ; a ex:City ; ex:twinnedWith ex:rome .
${Array.from({ length: 40 }, (_, i) => `ex:town${i} rdfs:label "Town ${i}" ; a ex:City ; ex:near ex:town${(i + 1) % 40} .`).join('\n')}
`;

describe('external store protocol', () => {
  let engine: Engine;
  let dataDir: string;
  let dispose: () => Promise<void>;
  let store: Awaited<ReturnType<typeof recordingStore>>;
  const file = join(mkdtempSync(join(tmpdir(), 'polyhop-store-')), 'cities.ttl');

  beforeAll(async () => {
    writeFileSync(file, CITIES);
    store = await recordingStore();
    ({ engine, dataDir, dispose } = await tempEngine({ embedder: new NgramEmbedder(64) }));
    for (const name of ['configured', 'unconfigured']) {
      await call(engine, 'kb:create', { name });
      expect((await runJobToEnd(engine, 'rdf:import', { kb: name, inputPath: file })).error).toBeNull();
    }
  });
  afterAll(async () => {
    await dispose();
    store.server.close();
  });

  /** Points 'configured' at the recording store: `/<queryPath>` for queries, `/update`, `/gsp`, the cities graph. */
  const setStore = (
    auth: Record<string, unknown>,
    queryPath = 'query',
    more: Record<string, unknown> = {},
  ): Promise<StoreStatus> =>
    call<StoreStatus>(engine, 'store:set', {
      kb: 'configured',
      queryUrl: `${store.base}/${queryPath}`,
      updateUrl: `${store.base}/update`,
      graphStoreUrl: `${store.base}/gsp`,
      graphIri: 'http://example.org/graphs/cities',
      auth,
      ...more,
    });

  it('sends nothing to any store for a KB without one: imports, queries, removals and asks for a sync', async () => {
    const result = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'unconfigured',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
    });
    expect(Number(result.rows[0]?.n)).toBeGreaterThan(0);
    for (const method of ['store:publish', 'store:sync']) {
      expect(await engine.call(method, { kb: 'unconfigured' })).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND', message: expect.stringMatching(/no external SPARQL store; configure one/) },
      });
    }
    expect(await engine.call('sparql:query', { kb: 'unconfigured', query: 'ASK {}', target: 'store' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await call<StoreStatus>(engine, 'store:show', { kb: 'unconfigured', probe: true })).toMatchObject({
      config: null,
      sync: null,
    });
    expect(store.requests).toEqual([]);
  });

  it('publishes over the Graph Store protocol: PUT then POSTs to ?graph=, Turtle bodies, Digest after the challenge', async () => {
    const status = await setStore({ kind: 'digest', username: 'me', password: 's3cret-pw' }, 'query', {
      batchQuads: 100,
    });
    expect(status.config?.auth).toEqual({ kind: 'digest', username: 'me', hasPassword: true });
    const job = await runJobToEnd(engine, 'store:publish', { kb: 'configured' });
    expect(job.error).toBeNull();
    const quads = (job.result as { quads: number }).quads;
    expect(quads).toBeGreaterThan(100);

    const writes = store.requests.filter((r) => r.url.pathname === '/gsp' && r.headers.authorization);
    expect(writes.map((r) => r.method)).toEqual(['PUT', ...Array(writes.length - 1).fill('POST')]);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    for (const w of writes) {
      expect(w.url.searchParams.get('graph')).toBe('http://example.org/graphs/cities');
      expect(w.headers['content-type']).toMatch(/^text\/turtle/);
      expect(w.headers.authorization).toMatch(
        /^Digest username="me", realm="test", uri="\/gsp\?graph=http%3A%2F%2Fexample\.org%2Fgraphs%2Fcities"/,
      );
    }
    expect(writes.reduce((n, w) => n + w.body.split('\n').filter((l) => l.endsWith(' .')).length, 0)).toBe(quads);
    // One challenge, asked for with a bodiless HEAD; then the nonce is reused with a rising count.
    expect(store.requests.filter((r) => !r.headers.authorization).map((r) => [r.method, r.body])).toEqual([
      ['HEAD', ''],
    ]);
    // (Before the writes, the graph's owner is read, the unowned graph found empty, and the owner recorded: see claimGraph.)
    const signed = store.requests.filter((r) => r.headers.authorization);
    expect(signed.slice(0, 3).map((r) => r.url.pathname)).toEqual(['/query', '/query', '/update']);
    expect(signed.map((w) => /nc=(\w+)/.exec(w.headers.authorization!)![1])).toEqual(
      signed.map((_, i) => (i + 1).toString(16).padStart(8, '0')),
    );
    // The password never travels, nor appears in what the Api or the KB file hold.
    for (const r of store.requests) expect(JSON.stringify(r.headers) + r.body).not.toContain('s3cret-pw');
    expect(JSON.stringify(await call(engine, 'store:show', { kb: 'configured' }))).not.toContain('s3cret-pw');
    expect(readFileSync(engine.kbs.get('configured').kb.file).includes('s3cret-pw')).toBe(false);
    expect(statSync(join(dataDir, 'stores.json')).mode & 0o077).toBe(0);
  });

  it('queries the store with the KB graph as default graph, and keeps the password when only other fields change', async () => {
    const before = store.requests.length;
    const r = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'configured',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      target: 'store',
    });
    expect(r.rows).toEqual([{ n: String(store.held()) }]);
    const sent = store.requests.slice(before).filter((q) => q.headers.authorization);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url.pathname).toBe('/query');
    expect(Object.fromEntries(new URLSearchParams(sent[0]!.body))).toEqual({
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      'default-graph-uri': 'http://example.org/graphs/cities',
    });
    expect(sent[0]!.headers.accept).toBe('application/sparql-results+json');

    await setStore({ kind: 'basic', username: 'me' });
    await call(engine, 'sparql:query', { kb: 'configured', query: 'ASK {}', target: 'store' }).catch(() => undefined);
    expect(store.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from('me:s3cret-pw').toString('base64')}`,
    );
  });

  it('console reads go without credentials until the query endpoint asks for them (issue 24 point 14)', async () => {
    await setStore({ kind: 'digest', username: 'me' }, 'open');
    const before = store.requests.length;
    const q = { kb: 'configured', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', target: 'store' };
    expect((await call<SparqlResult>(engine, 'sparql:query', q)).rows).toEqual([{ n: String(store.held()) }]);
    const anonymous = store.requests.slice(before);
    expect(anonymous.map((r) => [r.method, r.url.pathname, r.headers.authorization ?? null])).toEqual([
      ['POST', '/open', null],
    ]);
    // An endpoint that does ask (401) gets them, and is signed in to at once from then on.
    await setStore({ kind: 'digest', username: 'me' });
    const asked = store.requests.length;
    await call(engine, 'sparql:query', q);
    await call(engine, 'sparql:query', q);
    expect(store.requests.slice(asked).map((r) => [r.url.pathname, Boolean(r.headers.authorization)])).toEqual([
      ['/query', false],
      ['/query', true],
      ['/query', true],
    ]);
    // An update the user unlocked is sent signed in, as the sync's own requests are.
    await call(engine, 'sparql:query', { ...q, query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }', allowUpdate: true });
    expect(store.requests.at(-1)).toMatchObject({ url: expect.objectContaining({ pathname: '/update' }) });
    expect(store.requests.at(-1)!.headers.authorization).toMatch(/^Digest /);
  });

  it('an import job ending starts a sync only for a KB with a store: another KB sends nothing', async () => {
    await call(engine, 'kb:create', { name: 'late' });
    const before = store.requests.length;
    expect((await runJobToEnd(engine, 'rdf:import', { kb: 'late', inputPath: file })).error).toBeNull();
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'late' })).jobId).toBeNull();
    expect(store.requests.length).toBe(before);
  });

  it('a KB restored from a backup sends nothing until a store is set for it, and a deleted KB takes its store with it', async () => {
    const backup = join(dataDir, 'configured.kbbackup');
    expect((await runJobToEnd(engine, 'kb:backup', { kb: 'configured', outputPath: backup })).error).toBeNull();
    expect((await runJobToEnd(engine, 'kb:restore', { inputPath: backup, name: 'restored' })).error).toBeNull();
    const before = store.requests.length;
    expect(await call<StoreStatus>(engine, 'store:show', { kb: 'restored' })).toMatchObject({
      config: null,
      sync: null,
    });
    expect(engine.kbs.get('restored').kb.storeJournal.state().tracking).toBe(false);
    expect(await engine.call('store:sync', { kb: 'restored' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(store.requests.length).toBe(before);

    await call(engine, 'kb:delete', { kb: 'restored' });
    await call(engine, 'store:set', { kb: 'late', queryUrl: `${store.base}/query` });
    await call(engine, 'kb:delete', { kb: 'late' });
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, 'stores.json'), 'utf8')) as object)).toHaveLength(1);
  });

  it("sends a request again once when the connection drops before the answer, except a user's update", async () => {
    store.drop.next = 1;
    const before = store.requests.length;
    const r = await call<SparqlResult>(engine, 'sparql:query', {
      kb: 'configured',
      query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      target: 'store',
    });
    expect(r.rows).toEqual([{ n: String(store.held()) }]);
    expect(store.requests.length - before).toBe(2);
    store.drop.next = 1;
    const update = await engine.call('sparql:query', {
      kb: 'configured',
      query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }',
      target: 'store',
      allowUpdate: true,
    });
    expect(update).toMatchObject({
      ok: false,
      error: { code: 'STORE_ERROR', message: expect.stringMatching(/could not be reached/) },
    });
    store.drop.next = 2;
    expect(await engine.call('sparql:query', { kb: 'configured', query: 'ASK {}', target: 'store' })).toMatchObject({
      ok: false,
      error: { code: 'STORE_ERROR' },
    });
  });

  it('refuses URLs that carry credentials', async () => {
    const reply = await engine.call('store:set', { kb: 'configured', queryUrl: 'http://me:pw@127.0.0.1:1/sparql' });
    expect(reply).toMatchObject({ ok: false });
    // …in the query string too (issue 24 point 15), whichever endpoint it is on.
    for (const [field, url] of [
      ['queryUrl', 'http://127.0.0.1:1/sparql?password=pw'],
      ['updateUrl', 'http://127.0.0.1:1/sparql-auth?user=dba&PWD=pw'],
      ['graphStoreUrl', 'http://127.0.0.1:1/gsp?api_key=k'],
    ]) {
      const refused = await engine.call('store:set', {
        kb: 'configured',
        queryUrl: 'http://127.0.0.1:1/sparql',
        [field!]: url,
      });
      expect(refused).toMatchObject({
        ok: false,
        error: { code: 'INVALID_REQUEST', message: expect.stringMatching(/no password, token or key in the URL/) },
      });
      expect(JSON.stringify(refused)).not.toContain('pw&');
    }
  });
});
