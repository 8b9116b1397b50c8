import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { EndpointStatusView } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors, axeViolations, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { startModelListServer, type ModelListServer } from '../support/modelListServer.js';
import { call } from '../support/tempEngine.js';

/**
 * The Models screen's inference servers: add one that points at a test server, test it (it shows
 * the served models), see one added elsewhere appear (the list polls), remove it. The key typed
 * into the form goes to the server and never back into the page.
 */
const KEY = 'sk-e2e-7c1d3f5a9b2e4c6d8f0a1b3c5d7e9f2a';
let server: E2eServer;
let models: ModelListServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  models = await startModelListServer({ models: ['qwen3-8b', 'bge-m3'], apiKey: KEY });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await models?.close();
  await server?.close();
});

describeInBrowser('inference servers on the Models screen', () => {
  it('adds a server, tests it, shows one added elsewhere, and removes it', async () => {
    const { context, page, externalRequests, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-models').click();
      await settled(page);
      const section = page.getByTestId('inference-servers');
      await section.getByTestId('endpoints-empty').waitFor();

      await page.getByTestId('endpoint-add-id').fill('gpu1');
      await page.getByTestId('endpoint-add-role').selectOption('generation');
      await page.getByTestId('endpoint-add-url').fill(models.baseUrl);
      await page.getByTestId('endpoint-add-model').fill('qwen3-8b');
      await page.getByTestId('endpoint-add-key').fill(KEY);
      expect(await page.getByTestId('endpoint-add-key').getAttribute('type')).toBe('password');
      await page.getByTestId('endpoint-add-concurrency').fill('6');
      await page.getByTestId('endpoint-add-submit').click();

      const row = page.getByTestId('endpoint-row-gpu1');
      await row.waitFor();
      const cells = (await row.locator('td').allTextContents()).map((c) => c.trim());
      expect(cells.slice(0, 8)).toEqual([
        'gpu1',
        'Generation model',
        models.baseUrl,
        'qwen3-8b',
        'not tried yet',
        '—',
        '6',
        '0',
      ]);
      expect(await page.getByTestId('endpoint-add-key').inputValue()).toBe('');

      await page.getByTestId('endpoint-test-gpu1').click();
      const probe = page.getByTestId('endpoint-result-gpu1').getByTestId('endpoint-probe');
      await probe.waitFor();
      expect(await probe.getAttribute('data-ok')).toBe('true');
      expect(await probe.getAttribute('data-model-served')).toBe('true');
      expect(await probe.textContent()).toMatch(
        /Answered in \d+ ms, serving: qwen3-8b, bge-m3\. The model "qwen3-8b" is served\. A one-token completion answered\./,
      );
      // The model list, then one authenticated call of the endpoint's role.
      expect(models.requests.slice(-2)).toEqual([
        `GET /v1/models Bearer ${KEY}`,
        `POST /v1/chat/completions Bearer ${KEY}`,
      ]);

      // Added through another front door (the CLI, say): the open screen shows it on its own.
      await call(server.engine, 'endpoints:add', {
        id: 'emb',
        role: 'embedding',
        baseUrl: models.baseUrl,
        model: 'e5-large',
      });
      await page.getByTestId('endpoint-row-emb').waitFor();
      await page.getByTestId('endpoint-test-emb').click(); // no key: the server refuses
      const refused = page.getByTestId('endpoint-result-emb').getByTestId('endpoint-probe');
      await refused.waitFor();
      expect(await refused.getAttribute('data-ok')).toBe('false');
      expect(await refused.textContent()).toMatch(/No answer \(\d+ ms\): http:\/\/127\.0\.0\.1:\d+\/v1: 401/);

      await page.getByTestId('doctor-refresh').click();
      await page.getByTestId('doctor-network').filter({ hasText: '127.0.0.1' }).waitFor();
      expect(await page.getByTestId('doctor-network').textContent()).toBe(
        'loopback and the inference servers only: 127.0.0.1',
      );
      await screenshot(page, 'models-inference-servers');
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.content()).not.toContain(KEY);

      await page.getByTestId('endpoint-remove-gpu1').click();
      await row.waitFor({ state: 'detached' });
      await page.getByTestId('endpoint-remove-emb').click();
      await section.getByTestId('endpoints-empty').waitFor();
      await page.getByTestId('doctor-refresh').click();
      await page.getByTestId('doctor-network').filter({ hasText: 'nothing leaves this machine' }).waitFor();
      expect(await call<EndpointStatusView[]>(server.engine, 'endpoints:list', {})).toEqual([]);

      expect(externalRequests).toEqual([]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
