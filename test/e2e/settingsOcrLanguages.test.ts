import { expect, it } from 'vitest';
import type { Settings } from '../../src-main/engine/api/contract.js';
import { describeInBrowser, freshAppInBrowser } from '../support/browserSuite.js';
import { openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { call } from '../support/tempEngine.js';

/**
 * The Settings screen chooses the OCR languages among the installed ones (issue 25): every box
 * ticked by default (the setting's null), a cleared box saved as the list of the others, kept
 * across a reload; the last ticked box cannot be cleared.
 */

const INSTALLED = ['chi_sim', 'deu', 'eng', 'fra', 'ita', 'spa'];

describeInBrowser('OCR languages on the Settings screen', () => {
  const app = freshAppInBrowser();

  it('lists the installed languages by name, saves a choice to the engine and shows it after a reload', async () => {
    const { context, page, consoleErrors } = await openApp(app.browser, app.server.authUrl);
    try {
      expect((await call<Settings>(app.server.engine, 'system:getSettings', {})).ocrLanguages).toBeNull();
      await page.getByTestId('nav-settings').click();
      const panel = page.getByTestId('settings-ocr-languages');
      await panel.waitFor();
      for (const code of INSTALLED) expect(await page.getByTestId(`settings-ocr-${code}`).isChecked(), code).toBe(true);
      expect(await panel.textContent()).toContain('Italian (ita)');

      await page.getByTestId('settings-ocr-chi_sim').uncheck();
      await page.getByTestId('settings-ocr-deu').uncheck();
      await page.getByTestId('settings-save').click();
      await page.getByTestId('settings-saved').waitFor();
      expect((await call<Settings>(app.server.engine, 'system:getSettings', {})).ocrLanguages).toEqual([
        'eng',
        'fra',
        'ita',
        'spa',
      ]);
      await screenshot(page, 'settings-ocr-languages');

      await page.reload();
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-ocr-languages').waitFor();
      expect(await page.getByTestId('settings-ocr-chi_sim').isChecked()).toBe(false);
      expect(await page.getByTestId('settings-ocr-eng').isChecked()).toBe(true);
      for (const code of ['fra', 'ita', 'spa']) await page.getByTestId(`settings-ocr-${code}`).uncheck();
      expect(await page.getByTestId('settings-ocr-eng').isDisabled()).toBe(true);
      await page.getByTestId('settings-save').click();
      await page.getByTestId('settings-saved').waitFor();
      expect((await call<Settings>(app.server.engine, 'system:getSettings', {})).ocrLanguages).toEqual(['eng']);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
