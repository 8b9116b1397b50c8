import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { SparqlResult } from '../../src-main/engine/kb/rdf/SparqlResult.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { smallGraphTurtle } from '../support/smallGraph.js';
import { call } from '../support/tempEngine.js';

/**
 * The Graph screen's import form. With no KB yet: the name and base-IRI rules stop a bad form, a
 * file whose extension names no format is read with the format picked in the form, and the new KB
 * opens once the import is done, saying so. With a KB open: the form says when it is done and
 * opens the new KB on request.
 */
let server: E2eServer;
let browser: Browser;
let work: string;
let file: string;
let ttl: string;
const graph = smallGraphTurtle();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'polyhop-e2e-import-'));
  file = join(work, 'graph.data'); // no extension to guess from
  writeFileSync(file, graph.turtle);
  ttl = join(work, 'second.ttl');
  writeFileSync(ttl, graph.turtle);
  server = await startE2eServer({});
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function statements(kb: string): Promise<number> {
  const count = await call<SparqlResult>(server.engine, 'sparql:query', {
    kb,
    query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
  });
  return Number(count.rows[0]!.n);
}

describe('importing RDF as a new KB from the Graph screen', () => {
  it('refuses a bad form, imports with the chosen format, and opens the new KB when done', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-graph').click();
      await settled(page);
      await byId('no-kb').waitFor();
      const submit = byId('import-submit');

      await byId('import-kb-name').fill('bad/name');
      await byId('import-path').fill(file);
      expect(await page.getByText('at most 64 characters').count()).toBe(1);
      expect(await submit.isDisabled()).toBe(true);

      await byId('import-kb-name').fill('imported');
      await byId('import-base').fill('not an iri');
      expect(await byId('import-base').getAttribute('aria-invalid')).toBe('true');
      expect(await submit.isDisabled()).toBe(true);

      await byId('import-base').fill('https://example.org/base/');
      await byId('import-format').selectOption('turtle');
      await submit.click();
      const opened = page.getByRole('heading', { name: 'Knowledge graph of imported' });
      await opened.or(byId('error-view')).first().waitFor({ timeout: 120_000 });
      expect(await byId('error-view').count()).toBe(0);
      expect(await byId('app-notice').textContent()).toBe('Imported into imported.');
      expect(await statements('imported')).toBeGreaterThanOrEqual(graph.statements);

      await byId('graph-view-transfer').click();
      await byId('import-kb-name').fill('second');
      await byId('import-path').fill(ttl);
      await byId('import-submit').click();
      await byId('import-done').waitFor({ timeout: 120_000 });
      await byId('import-done').getByRole('button').click();
      await page.getByRole('heading', { name: 'Knowledge graph of second' }).waitFor();
      expect(await statements('second')).toBeGreaterThanOrEqual(graph.statements);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
