import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SparqlResult, StoreStatus } from '../../src-main/engine/api/contract.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { smallGraphTurtle } from '../support/smallGraph.js';
import { startConformingStore } from '../support/conformingStore.js';
import { call, runJobToEnd } from '../support/tempEngine.js';
import { type VirtuosoInstance, startVirtuoso } from '../support/virtuoso.js';

/**
 * Issue 16 part 2 on the SPARQL screen: configure a Virtuoso store, publish with progress, query it;
 * and (issue 24) a graph that holds statements no KB claims is taken over only when confirmed, and
 * the panel's timeout is the one a publish to a store that never answers gives up at (point 15).
 */
let server: E2eServer;
let browser: Browser;
let virtuoso: VirtuosoInstance;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'polyhop-e2e-store-'));
  const file = join(work, 'Output.ttl');
  writeFileSync(file, smallGraphTurtle().turtle);
  virtuoso = await startVirtuoso();
  server = await startE2eServer({});
  await call(server.engine, 'kb:create', { name: 'mse' });
  expect((await runJobToEnd(server.engine, 'rdf:import', { kb: 'mse', inputPath: file })).error).toBeNull();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await virtuoso?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The app on the Graph screen's SPARQL view, where the store panel is. */
async function openSparqlScreen() {
  const opened = await openApp(browser, server.authUrl);
  const byId = (id: string) => opened.page.getByTestId(id);
  await byId('nav-graph').click();
  await byId('graph-view-sparql').click();
  await settled(opened.page);
  return { ...opened, byId };
}

describe('the External SPARQL store panel', () => {
  it('saves a store with Digest auth, publishes it as a job, shows the sync state, and the console queries the store', async () => {
    const { context, page, consoleErrors, byId } = await openSparqlScreen();
    try {
      await byId('store-query-url').fill(virtuoso.queryUrl);
      await byId('store-update-url').fill(virtuoso.authUrl);
      await byId('store-gsp-url').fill(virtuoso.graphStoreUrl);
      await byId('store-auth').selectOption('digest');
      await byId('store-user').fill(virtuoso.user);
      await byId('store-password').fill(virtuoso.password);
      await byId('store-save').click();
      await byId('store-status').waitFor();
      expect(await byId('store-state').textContent()).toMatch(/full publish is due/);
      // The password field is write-only: after saving it is empty and says the stored one is kept.
      expect(await byId('store-password').inputValue()).toBe('');
      expect(await byId('store-password').getAttribute('placeholder')).toBe('(unchanged)');

      await byId('store-publish').click();
      await page.locator('[data-testid="job-progress"][data-status="done"]').waitFor({ timeout: 120_000 });
      await page.waitForFunction(
        () =>
          /0 documents and 0 entities to sync/.test(
            document.querySelector('[data-testid="store-state"]')?.textContent ?? '',
          ),
        undefined,
        { timeout: 30_000 },
      );
      await byId('store-probe').click();
      await byId('store-quads').waitFor();
      const view = await call<SparqlResult>(server.engine, 'sparql:query', {
        kb: 'mse',
        query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      });
      const inStore = Number((await byId('store-quads').textContent())?.replace(/[^\d]/g, ''));
      expect(inStore).toBe(Number(view.rows[0]!.n));

      await byId('sparql-target').selectOption('store');
      await byId('sparql-editor').fill('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }');
      await byId('sparql-run').click();
      await byId('sparql-results').waitFor();
      expect(await byId('sparql-results').textContent()).toContain(String(view.rows[0]!.n));
      expect(await call<StoreStatus>(server.engine, 'store:show', { kb: 'mse' })).toMatchObject({
        config: { auth: { kind: 'digest', hasPassword: true } },
        sync: { lastError: null },
      });
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refuses a graph holding another tool's statements, and takes it over after asking", async () => {
    const foreign = await startConformingStore();
    const graph = 'http://example.org/graphs/foreign';
    const oxigraph = (await import('oxigraph')).default;
    foreign.store.load('<urn:a> <urn:b> "kept by another tool" .', {
      format: 'text/turtle',
      to_graph_name: oxigraph.namedNode(graph),
    });
    const inGraph = (): number => foreign.store.match(null, null, null, oxigraph.namedNode(graph)).length;
    await call(server.engine, 'store:set', {
      kb: 'mse',
      queryUrl: foreign.url,
      updateUrl: foreign.url,
      graphStoreUrl: foreign.url,
      graphIri: graph,
      auth: { kind: 'none' },
      autoSync: false,
    });
    const { context, page, consoleErrors, byId } = await openSparqlScreen();
    try {
      await byId('store-publish').click();
      await byId('store-take-over').waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('store-panel').textContent()).toMatch(/no knowledge base claims/);
      expect(inGraph()).toBe(1);

      // Cancelled: nothing is sent.
      await byId('store-take-over').click();
      await byId('confirm-dialog').waitFor();
      expect(await byId('confirm-dialog').textContent()).toContain(graph);
      await byId('confirm-cancel').click();
      expect(inGraph()).toBe(1);

      await byId('store-take-over').click();
      await byId('confirm-ok').click();
      await page.locator('[data-testid="job-progress"][data-status="done"]').waitFor({ timeout: 120_000 });
      const view = await call<SparqlResult>(server.engine, 'sparql:query', {
        kb: 'mse',
        query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
      });
      expect(inGraph()).toBe(Number(view.rows[0]!.n));
      expect(await call<StoreStatus>(server.engine, 'store:show', { kb: 'mse', probe: true })).toMatchObject({
        graphOwner: { thisKb: true },
        sync: { lastError: null },
      });
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
      await foreign.close();
    }
  });
  it('saves the timeout field, and a publish to a store that never answers gives up at it', async () => {
    // Accepts connections, reads each request, never writes a byte (a hung server).
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
    });
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const { context, page, consoleErrors, byId } = await openSparqlScreen();
    try {
      await byId('store-query-url').fill(`${base}/sparql`);
      await byId('store-update-url').fill(`${base}/sparql`);
      await byId('store-gsp-url').fill(`${base}/sparql`);
      await byId('store-graph').fill('http://example.org/graphs/silent');
      await byId('store-auth').selectOption('none');
      await byId('store-auto-sync').uncheck();
      await byId('store-timeout').fill('2');
      await byId('store-save').click();
      await page.waitForFunction(
        (url) => document.querySelector<HTMLInputElement>('[data-testid="store-query-url"]')?.value === url,
        `${base}/sparql`,
      );
      expect(await call<StoreStatus>(server.engine, 'store:show', { kb: 'mse' })).toMatchObject({
        config: { queryUrl: `${base}/sparql`, requestTimeoutMs: 2000 },
      });
      // Saved, not only typed: a fresh page shows it from the store's settings.
      await page.reload();
      await byId('nav-graph').click();
      await byId('graph-view-sparql').click();
      await settled(page);
      await page.waitForFunction(
        () => document.querySelector<HTMLInputElement>('[data-testid="store-timeout"]')?.value === '2',
      );

      await byId('store-publish').click();
      // The default limit (300 s) would outlast this wait.
      await page.locator('[data-testid="job-progress"][data-status="failed"]').waitFor({ timeout: 60_000 });
      await page.waitForFunction(
        () => /no answer within 2000 ms/.test(document.querySelector('[data-testid="store-panel"]')?.textContent ?? ''),
        undefined,
        { timeout: 30_000 },
      );
      expect(sockets.length).toBeGreaterThan(0);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => silent.close(() => ok()));
    }
  });
});
