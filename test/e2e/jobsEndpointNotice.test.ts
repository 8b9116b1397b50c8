import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { startFlavouredServer, type FlavouredServer } from '../support/flavouredServer.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { call } from '../support/tempEngine.js';

/**
 * The Jobs panel tells the user why a running job waits: the generation server answers 503 with
 * `Retry-After` (Ollama's full queue) until the test lets it serve; meanwhile the indexing job's
 * panel shows the endpoint's notice, in the UI language chosen, and it goes when the job is done.
 */
const KB = 'ithaca';
let server: E2eServer;
let generation: FlavouredServer;
let browser: Browser;

beforeAll(async () => {
  generation = await startFlavouredServer({ flavour: 'ollama', model: 'qwen3-8b' });
  server = await startE2eServer({ models: { embedder: new NgramEmbedder(32) } });
  await call(server.engine, 'endpoints:add', {
    id: 'gen',
    role: 'generation',
    baseUrl: generation.baseUrl,
    model: 'qwen3-8b',
  });
  const folder = join(server.dataDir, 'docs');
  mkdirSync(folder);
  writeFileSync(join(folder, 'ithaca.txt'), 'Odysseus was the king of Ithaca. Penelope waited for him there.\n');
  await call(server.engine, 'kb:create', { name: KB });
  await call(server.engine, 'docs:add', { kb: KB, paths: [folder] });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await generation?.close();
});

async function openCorpus(page: Page): Promise<void> {
  await page.getByTestId('nav-corpus').click();
  await page.getByTestId('kb-switcher').selectOption(KB);
  await settled(page);
}

describeInBrowser('an inference server’s wait in the Jobs panel', () => {
  it('shows the busy server’s notice while the job waits, in the UI language, and drops it when done', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      // Busy until released: each call is answered 503 and asked again a second later.
      generation.busy(10_000, { status: 503, retryAfter: '1' });
      await openCorpus(page);
      await page.getByTestId('index-start').click();
      const job = page.getByTestId('job-progress');
      const notice = job.getByTestId('job-endpoint-notice');
      await notice.waitFor();
      expect(await job.getAttribute('data-status')).toBe('running');
      const waiting =
        /gen is busy \(.*HTTP 503.*server busy, please try again.*\); asking again in 1 s as it asked \(Retry-After\)$/;
      expect(await notice.textContent()).toMatch(new RegExp(`^Inference server: ${waiting.source}`));
      await screenshot(page, 'jobs-endpoint-notice');

      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-ui-language').selectOption('it');
      await openCorpus(page);
      await notice.filter({ hasText: /^Server di inferenza: / }).waitFor();
      expect(await notice.textContent()).toMatch(new RegExp(`^Server di inferenza: ${waiting.source}`));

      generation.notBusy();
      await job.and(page.locator('[data-status="done"]')).waitFor({ timeout: 90_000 });
      expect(await notice.count()).toBe(0);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
