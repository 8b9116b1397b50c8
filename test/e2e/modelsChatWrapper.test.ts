import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { TEMPLATED_MODELS, templatedLlamaPath } from '../fixtures/templatedLlama.js';

/**
 * The Models screen says which chat wrapper a model file resolves to and whether it reasons
 * before the file is loaded (issue 21.2): the engine reads the GGUF header only.
 */

let server: E2eServer;
let browser: Browser;

describeInBrowser('chat wrapper of a model file on the Models screen', () => {
  beforeAll(async () => {
    server = await startE2eServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('Inspect shows the wrapper and how the model reasons, and loads nothing', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-models').click();
      await page.getByTestId('screen-models').waitFor();

      await page.getByTestId('model-load-path').fill(await templatedLlamaPath(TEMPLATED_MODELS.qwq));
      await page.getByTestId('model-inspect').click();
      const qwq = page.getByTestId('model-inspect-chat');
      await qwq.waitFor();
      expect(await qwq.textContent()).toBe(
        'Qwen (variation 3.5): always reasons (its template has no switch to turn it off)',
      );
      expect(await qwq.getAttribute('data-reasons')).toBe('true');

      await page.getByTestId('model-load-path').fill(await templatedLlamaPath(TEMPLATED_MODELS.qwen3Instruct));
      expect(await page.getByTestId('model-inspect-result').count(), 'a new path voids the last answer').toBe(0);
      await page.getByTestId('model-inspect').click();
      await page.getByTestId('model-inspect-chat').getByText('does not reason').waitFor();
      expect(await page.getByTestId('model-inspect-chat').textContent()).toBe('Qwen (variation 3): does not reason');
      await screenshot(page, 'models-inspect-chat');

      const status = (await server.engine.call('models:status', {})) as {
        ok: boolean;
        value?: { generation: unknown };
      };
      expect(status.value?.generation, 'inspecting loads no model').toBeNull();
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
