import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { estimateQuestion } from '../../src-main/engine/qa/index.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { call } from '../support/tempEngine.js';

/**
 * Issue 23 point 4 on the Ask screen: beside the strategy choice, how long the model's part of a
 * question may take on a named GPU with a named catalog model, for the chosen strategy (each
 * compared one when comparing), none for an evidence-only question.
 */
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer({ models: {} });
  await call(server.engine, 'kb:create', { name: 'est' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The renderer's formatSeconds of a rounded duration ("6s", "1m 8s", "2h 10m"). */
function shown(r: { hours: number; minutes: number; seconds: number }): string {
  const total = r.hours * 3600 + r.minutes * 60 + r.seconds;
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

function expectedLine(strategy: 'dr' | 'hyp' | 'vector'): string {
  const e = estimateQuestion(strategy);
  return `takes about ${shown(e.rounded)} on an RTX 3090 with Qwen3-8B Q4_K_M, up to ${shown(e.reasoningRounded)} if every reasoning step`;
}

describeInBrowser('the Ask screen’s time estimate', () => {
  it('names the GPU and model and follows the strategy choice, comparison and evidence-only', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-ask').click();
      await settled(page);
      await byId('ask-strategy').selectOption('dr');
      const estimate = byId('ask-estimate');
      await estimate.waitFor();
      expect(await estimate.textContent()).toContain(expectedLine('dr'));
      await byId('ask-strategy').selectOption('vector');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="ask-estimate"] p')?.getAttribute('data-strategy') === 'vector',
      );
      expect(await estimate.textContent()).toContain(expectedLine('vector'));
      expect(expectedLine('vector')).not.toBe(expectedLine('dr'));

      await byId('ask-compare-toggle').check();
      const lines = estimate.locator('p');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="ask-estimate"] p').length === 2);
      expect(await lines.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-strategy')))).toEqual(['dr', 'hyp']);
      expect(await lines.nth(1).textContent()).toContain(expectedLine('hyp'));

      await byId('ask-retrieval-only').check();
      await estimate.waitFor({ state: 'detached' });
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
