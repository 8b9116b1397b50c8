import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { InjectedModels } from '../../src-main/engine/api/ModelRuntime.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { smallGraphTurtle } from '../support/smallGraph.js';
import { call, runJobToEnd } from '../support/tempEngine.js';
import { fillItacaKb, ITACA_ROWS } from '../unit/qa/support/itacaCorpus.js';

/**
 * Issue 13 on the Corpus screen: a graph imported with no embedding model shows that its vectors
 * are missing and offers Embed; once a model is there, Embed fills them and the notice goes.
 */
const models: InjectedModels = {};
let server: E2eServer;
let browser: Browser;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'polyhop-e2e-vectors-'));
  const file = join(work, 'Output.ttl');
  writeFileSync(file, smallGraphTurtle().turtle);
  server = await startE2eServer({ models });
  await call(server.engine, 'kb:create', { name: 'mse' });
  const job = await runJobToEnd(server.engine, 'rdf:import', { kb: 'mse', inputPath: file });
  expect(job.error).toBeNull();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a KB imported without an embedding model, on the Corpus screen', () => {
  it('says its vectors are missing, and Embed fills them once a model is chosen', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await settled(page);
      const notice = page.getByTestId('kb-vectors-missing-mse');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/Vectors missing: \d+ rows .*embedding model/);
      const embed = page.getByTestId('kb-reembed-mse');
      expect((await embed.textContent())?.trim()).toBe('Embed');

      models.embedder = new NgramEmbedder(64);
      await embed.click();
      await notice.waitFor({ state: 'detached' });
      expect((await embed.textContent())?.trim()).toBe('Re-embed');
      expect(await call(server.engine, 'kb:info', { kb: 'mse' })).toMatchObject({
        missingVectors: 0,
        embedder: { dimension: 64 },
      });
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('a KB indexed before original-language vectors existed, on the Corpus screen', () => {
  it('says which vectors are missing, and Embed makes them with the same model', async () => {
    models.embedder ??= new NgramEmbedder(64);
    await call(server.engine, 'kb:create', { name: 'itaca' });
    const { kb } = server.engine.kbs.get('itaca');
    await fillItacaKb(kb, models.embedder);
    // What migration 0005 leaves: English vectors only.
    kb.vectors.deleteVectors(
      'chunk_original',
      [...kb.documents.iterateChunks()].map((c) => c.id),
    );
    const italian = ITACA_ROWS.filter((r) => r.language !== 'en').length;
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await settled(page);
      const notice = page.getByTestId('kb-vectors-missing-itaca');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(
        new RegExp(`Original-language vectors missing: ${italian} non-English chunks`),
      );
      const embed = page.getByTestId('kb-reembed-itaca');
      expect((await embed.textContent())?.trim()).toBe('Embed');
      await embed.click();
      await notice.waitFor({ state: 'detached' });
      expect(kb.stats().vectors.chunk_original).toBe(italian);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
