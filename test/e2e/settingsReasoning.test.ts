import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Settings } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { appConsoleErrors } from '../support/e2ePage.js';

/**
 * The Settings screen shows the engine's per-step reasoning policy (issue 21.1): each step's box
 * reflects its effective mode, a change is saved to the engine, and it survives a reload.
 */

let server: E2eServer;
let browser: Browser;

async function engineSettings(): Promise<Settings> {
  const reply = (await server.engine.call('system:getSettings', {})) as { ok: boolean; value?: Settings };
  expect(reply.ok).toBe(true);
  return reply.value!;
}

describeInBrowser('reasoning policy on the Settings screen', () => {
  beforeAll(async () => {
    server = await startE2eServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows every step with its effective mode and saves a change to the engine', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      const before = await engineSettings();
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-reasoning').waitFor();
      for (const [step, mode] of Object.entries(before.reasoning)) {
        expect(await page.getByTestId(`settings-reasoning-${step}`).isChecked(), step).toBe(mode === 'on');
      }
      expect(before.reasoning.map).toBe('off');
      expect(before.reasoning.answer).toBe('on');

      await page.getByTestId('settings-reasoning-map').check();
      await page.getByTestId('settings-reasoning-answer').uncheck();
      await page.getByTestId('settings-save').click();
      await page.getByTestId('settings-saved').waitFor();
      const after = await engineSettings();
      expect(after.reasoning).toEqual({ ...before.reasoning, map: 'on', answer: 'off' });
      await screenshot(page, 'settings-reasoning');

      await page.reload();
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-reasoning').waitFor();
      expect(await page.getByTestId('settings-reasoning-map').isChecked()).toBe(true);
      expect(await page.getByTestId('settings-reasoning-answer').isChecked()).toBe(false);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
