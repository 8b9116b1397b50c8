import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SparqlResult, StoreStatus } from '../../src-main/engine/api/contract.js';
import { repoRoot } from '../support/tempEngine.js';
import { virtuosoCliSuite } from '../support/virtuosoCli.js';

const MSE_KG = resolve(repoRoot, '..', 'shared', 'data', 'mse-kg', 'Output.ttl');

/**
 * Virtuoso as Debian packages it: the `[SPARQL]` limits of its /etc/virtuoso-opensource-7/virtuoso.ini
 * (ResultSetMaxRows 10000), driven the way a user drives Polyhop, from the CLI (issue 24, points 10–14).
 */
describe("an external store on Debian's default Virtuoso limits, from the CLI", () => {
  const store = virtuosoCliSuite('polyhop-cli-defaults-');
  const { polyhop, json, storeSet } = store;

  it('point 10: `import` finishes the automatic sync before it exits, with progress', async () => {
    expect(await polyhop('kb', 'create', 'mse')).toMatchObject({ code: 0 });
    expect(await storeSet('mse', `http://127.0.0.1:${store.virtuoso.httpPort}`)).toMatchObject({ code: 0, err: '' });
    const imported = await polyhop('import', MSE_KG, '--kb', 'mse');
    expect(imported, imported.err).toMatchObject({ code: 0 });
    const status = await json<StoreStatus>('store', 'show', '--kb', 'mse', '--probe');
    expect(status.sync).toMatchObject({ fullNeeded: false, lastError: null });
    expect(status.storeQuads).toBeGreaterThan(70_000);
    expect(imported.err).toMatch(/Syncing the external store of "mse"/);
  });

  // Five paged reads of ~75k rows each through the in-process CLI: 115 s on the busy 2-core machine, so the limit
  // (there to catch a hang) leaves room above the default 120 s.
  it(
    "point 11: an answer past Virtuoso's ResultSetMaxRows (10,000) comes in pages, and a short one says it is",
    { timeout: 360_000 },
    async () => {
      const all = 'SELECT ?s ?p ?o WHERE { ?s ?p ?o }';
      const ask = (q: string, maxRows: number, ...target: string[]): Promise<SparqlResult> =>
        json<SparqlResult>('sparql', q, '--kb', 'mse', '--max-rows', String(maxRows), '--timeout', '300000', ...target);
      const statements = (r: SparqlResult): string[] => r.rows.map((x) => `${x.s} ${x.p} ${x.o}`).sort();
      const stored = (await json<StoreStatus>('store', 'show', '--kb', 'mse', '--probe')).storeQuads!;
      const whole = await ask(all, 100_000, '--store');
      expect(whole).toMatchObject({ truncated: false, storeMaxRows: 10_000 });
      expect(whole.rows).toHaveLength(stored);
      // A graph is a set: as many distinct rows as the view gives means no page overlapped or missed
      // one (rows show values only, so a few statements differing in a literal's type read alike).
      expect(new Set(statements(whole)).size).toBe(new Set(statements(await ask(all, 100_000))).size);
      // The cap below what the store holds, and the query's own LIMIT/OFFSET, still hold.
      const capped = await ask(all, 20_000, '--store');
      expect(capped).toMatchObject({ truncated: true });
      expect(capped.rows).toHaveLength(20_000);
      const window = await ask(`${all} LIMIT 15000 OFFSET 100`, 100_000, '--store');
      expect(window).toMatchObject({ truncated: false });
      expect(window.rows).toHaveLength(15_000);
      const text = await polyhop('sparql', all, '--kb', 'mse', '--store', '--max-rows', '20000', '--timeout', '300000');
      expect(text.out).toMatch(/\(truncated at 20,000 rows; --max-rows raises the cap\)\n$/);
    },
  );

  it('point 14: a function call that Virtuoso runs as a SQL procedure is refused, even on the authenticated endpoint', async () => {
    const base = `http://127.0.0.1:${store.virtuoso.httpPort}`;
    // Queries through /sparql-auth: signed in as dba, where a function IRI names a procedure that may write.
    expect(await storeSet('mse', base, '--query-url', `${base}/sparql-auth`)).toMatchObject({ code: 0 });
    const graph = (await json<StoreStatus>('store', 'show', '--kb', 'mse')).config!.graphIri;
    // Virtuoso takes <TTLP> for DB.DBA.TTLP, its Turtle loader: no bif: or sql: in sight.
    const write = `SELECT (<TTLP>('<urn:a> <urn:b> <urn:planted> .', '', '${graph}') AS ?x) WHERE {}`;
    const refused = await polyhop('sparql', write, '--kb', 'mse', '--store');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/function <TTLP> is not a SPARQL built-in/);
    const planted = await polyhop('sparql', 'ASK { <urn:a> <urn:b> <urn:planted> }', '--kb', 'mse', '--store');
    expect(planted).toMatchObject({ code: 0, out: 'false\n' });
    const bif = await polyhop(
      'sparql',
      "PREFIX b: <bif:> SELECT (b:exec('SPARQL INSERT DATA { <urn:a> <urn:b> <urn:c> }') AS ?x) WHERE {}",
      '--kb',
      'mse',
      '--store',
    );
    expect(bif.err).toMatch(/function bif:exec is not a SPARQL built-in/);
  });

  it('point 10: Ctrl-C during that sync leaves it journalled and says so; `store sync` then completes', async () => {
    expect(await polyhop('kb', 'create', 'cut')).toMatchObject({ code: 0 });
    expect(await storeSet('cut', store.proxy.base, '--graph', 'http://example.org/polyhop/cut')).toMatchObject({
      code: 0,
    });
    // Ctrl-C as the publish's first Graph Store write reaches the store.
    store.proxy.onRequest = (req) => {
      if (req.method !== 'PUT') return;
      store.proxy.onRequest = null;
      process.emit('SIGINT');
    };
    const imported = await polyhop('import', MSE_KG, '--kb', 'cut');
    store.proxy.onRequest = null;
    expect(imported, imported.err).toMatchObject({ code: 0 });
    expect(imported.err).toMatch(
      /Store sync cancelled: the changes not yet sent stay journalled; `polyhop store sync --kb "cut"` sends them/,
    );
    const cut = await json<StoreStatus>('store', 'show', '--kb', 'cut');
    expect(cut.sync).toMatchObject({ fullNeeded: true, lastError: 'cancelled before it completed' });

    const synced = await polyhop('store', 'sync', '--kb', 'cut');
    expect(synced, synced.err).toMatchObject({ code: 0 });
    expect(synced.out).toMatch(/Published [\d,]+ quads/);
    const after = await json<StoreStatus>('store', 'show', '--kb', 'cut', '--probe');
    expect(after.sync).toMatchObject({ fullNeeded: false, lastError: null });
    expect(after.storeQuads).toBe((await json<StoreStatus>('store', 'show', '--kb', 'mse', '--probe')).storeQuads);
  });
});
