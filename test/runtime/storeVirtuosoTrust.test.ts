import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SparqlResult, StoreStatus } from '../../src-main/engine/api/contract.js';
import { smallGraphTurtle } from '../support/smallGraph.js';
import { virtuosoCliSuite } from '../support/virtuosoCli.js';

/**
 * Whether an answer from the store can be trusted, and whose graph it is (issue 24, points 12 and
 * 13), against Virtuoso on Debian's default limits, driven from the CLI.
 */
describe('an external store says how far its copy can be trusted, and whose graph it is', () => {
  const store = virtuosoCliSuite('polyhop-store-trust-');
  const { polyhop, json, storeSet } = store;
  let small: string;
  let note: string;
  const COUNT = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
  const inView = async (kb: string): Promise<number> =>
    Number((await json<SparqlResult>('sparql', COUNT, '--kb', kb)).rows[0]?.n);
  const stored = async (kb: string): Promise<number> =>
    (await json<StoreStatus>('store', 'show', '--kb', kb, '--probe')).storeQuads!;

  beforeAll(async () => {
    small = join(store.dir, 'small.ttl');
    writeFileSync(small, smallGraphTurtle().turtle);
    note = join(store.dir, 'note.txt');
    writeFileSync(note, 'Hannover is a city in Lower Saxony. The Leibniz University is there.\n');
  });

  it('point 12: an answer from a partial or stale copy carries a warning (Api field, stderr), and the query still succeeds', async () => {
    expect(await polyhop('kb', 'create', 'cut')).toMatchObject({ code: 0 });
    expect(await storeSet('cut', store.proxy.base)).toMatchObject({ code: 0 });
    // Ctrl-C as the publish's first Graph Store write reaches the store: a partial copy.
    store.proxy.onRequest = (req) => {
      if (req.method !== 'PUT') return;
      store.proxy.onRequest = null;
      process.emit('SIGINT');
    };
    const imported = await polyhop('import', small, '--kb', 'cut');
    store.proxy.onRequest = null;
    expect(imported, imported.err).toMatchObject({ code: 0 });

    const partial = await polyhop('--json', 'sparql', COUNT, '--kb', 'cut', '--store');
    expect(partial.code).toBe(0);
    expect((JSON.parse(partial.out) as SparqlResult).storeCopy).toMatchObject({
      state: 'partial',
      lastError: 'cancelled before it completed',
    });
    expect(partial.err).toMatch(
      /Warning: the store's copy of "cut" is incomplete: its last publish stopped before it completed \(cancelled before it completed\); .*`polyhop store publish --kb "cut"`/,
    );

    expect(await polyhop('store', 'sync', '--kb', 'cut')).toMatchObject({ code: 0 });
    const current = await polyhop('sparql', COUNT, '--kb', 'cut', '--store');
    expect(current).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse((await polyhop('--json', 'sparql', COUNT, '--kb', 'cut', '--store')).out)).not.toHaveProperty(
      'storeCopy',
    );

    // The KB changes without the store hearing of it: a document added, not sent.
    expect(await storeSet('cut', store.proxy.base, '--no-auto-sync')).toMatchObject({ code: 0 });
    const added = await polyhop('add', note, '--kb', 'cut');
    expect(added, added.err).toMatchObject({ code: 0 });
    const stale = await polyhop('--json', 'sparql', COUNT, '--kb', 'cut', '--store');
    expect(stale.code).toBe(0);
    expect((JSON.parse(stale.out) as SparqlResult).storeCopy).toMatchObject({
      state: 'stale',
      pendingDocuments: 1,
      lastError: null,
    });
    expect(stale.err).toMatch(
      /Warning: "cut" changed since the store last had it \(1 documents and 0 entities not yet sent\); .*`polyhop store sync --kb "cut"`/,
    );
  });

  it("point 13: a KB restored under a new name cannot overwrite the original's graph unless told to take it over", async () => {
    expect(await polyhop('kb', 'create', 'original')).toMatchObject({ code: 0 });
    const base = `http://127.0.0.1:${store.virtuoso.httpPort}`;
    expect(await storeSet('original', base)).toMatchObject({ code: 0 });
    expect(await polyhop('import', small, '--kb', 'original')).toMatchObject({ code: 0 });
    const originals = await stored('original');
    expect(originals).toBe(await inView('original'));

    // The copy keeps the original's base IRI, so its default graph is the same one.
    const file = join(store.dir, 'original.polyhop');
    expect(await polyhop('kb', 'backup', 'original', file)).toMatchObject({ code: 0 });
    expect(await polyhop('kb', 'restore', file, 'copy')).toMatchObject({ code: 0 });
    expect(await polyhop('add', note, '--kb', 'copy')).toMatchObject({ code: 0 });
    expect(await storeSet('copy', base)).toMatchObject({ code: 0 });
    const graph = (await json<StoreStatus>('store', 'show', '--kb', 'copy')).config!.graphIri;
    expect((await json<StoreStatus>('store', 'show', '--kb', 'original')).config!.graphIri).toBe(graph);

    const refused = await polyhop('store', 'publish', '--kb', 'copy');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/belongs to the knowledge base "original" \(id [^)]+\), not to "copy"/);
    expect(refused.err).toMatch(/--take-over/);
    expect(await stored('original')).toBe(originals);

    const taken = await polyhop('store', 'publish', '--kb', 'copy', '--take-over');
    expect(taken, taken.err).toMatchObject({ code: 0 });
    expect(await stored('copy')).toBe(await inView('copy'));
    expect(await inView('copy')).not.toBe(originals);
    // Now the original is the one refused, and says so in its state.
    const back = await polyhop('store', 'publish', '--kb', 'original');
    expect(back.code).toBe(1);
    expect(back.err).toMatch(/belongs to the knowledge base "copy"/);
    expect((await json<StoreStatus>('store', 'show', '--kb', 'original')).sync?.lastError).toMatch(/belongs to/);
  });

  it('point 15: `store show --probe` checks the credentials with an authenticated no-op, where a count alone passes anonymously', async () => {
    const right = process.env.POLYHOP_STORE_PASSWORD;
    process.env.POLYHOP_STORE_PASSWORD = 'not-the-password';
    try {
      expect(await storeSet('cut', store.proxy.base)).toMatchObject({ code: 0 });
      const wrong = await json<StoreStatus>('store', 'show', '--kb', 'cut', '--probe');
      expect(wrong.storeQuads).toBeGreaterThan(0);
      expect(wrong.updateProbe).toMatchObject({
        ok: false,
        error: expect.stringMatching(/refused the credentials \(HTTP 401\)/),
      });
      expect(JSON.stringify(wrong)).not.toContain('not-the-password');
    } finally {
      process.env.POLYHOP_STORE_PASSWORD = right;
    }
    expect(await storeSet('cut', store.proxy.base)).toMatchObject({ code: 0 });
    const ok = await json<StoreStatus>('store', 'show', '--kb', 'cut', '--probe');
    expect(ok.updateProbe).toEqual({ ok: true });
    expect(ok.graphOwner).toMatchObject({ name: 'cut', thisKb: true });
    const text = await polyhop('store', 'show', '--kb', 'cut', '--probe');
    expect(text.out).toMatch(/^owner: {3}this knowledge base$/m);
    expect(text.out).toMatch(/^signin: {2}the update endpoint accepted the credentials/m);
  });

  it('a CONSTRUCT that Virtuoso cuts at its ResultSetMaxRows (10,000) is flagged truncated', async () => {
    const file = join(store.dir, 'big.ttl');
    const lines = ['@prefix ex: <https://example.org/big/> .'];
    for (let i = 0; i < 4000; i++) lines.push(`ex:e${i} ex:n ${i} ; ex:next ex:e${i + 1} ; ex:tag "t${i % 7}" .`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(await polyhop('kb', 'create', 'big')).toMatchObject({ code: 0 });
    expect(await storeSet('big', `http://127.0.0.1:${store.virtuoso.httpPort}`)).toMatchObject({ code: 0 });
    expect(await polyhop('import', file, '--kb', 'big')).toMatchObject({ code: 0 });
    expect(await stored('big')).toBeGreaterThan(12_000);
    const all = 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }';
    const r = await json<SparqlResult>(
      'sparql',
      all,
      '--kb',
      'big',
      '--store',
      '--max-rows',
      '100000',
      '--timeout',
      '120000',
    );
    expect(r).toMatchObject({ kind: 'graph', truncated: true, storeMaxRows: 10_000 });
  });
});
