import { expect, it } from 'vitest';
import type { Settings } from '../../src-main/engine/api/contract.js';
import { describeInBrowser, freshAppInBrowser } from '../support/browserSuite.js';
import { openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { call } from '../support/tempEngine.js';

/**
 * The Settings screen shows the engine's per-step reasoning policy (issue 21.1): each step's box
 * reflects its effective mode, a change is saved to the engine, and it survives a reload.
 */

describeInBrowser('reasoning policy on the Settings screen', () => {
  const app = freshAppInBrowser();

  it('shows every step with its effective mode and saves a change to the engine', async () => {
    const { context, page, consoleErrors } = await openApp(app.browser, app.server.authUrl);
    try {
      const before = await call<Settings>(app.server.engine, 'system:getSettings', {});
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
      const after = await call<Settings>(app.server.engine, 'system:getSettings', {});
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
