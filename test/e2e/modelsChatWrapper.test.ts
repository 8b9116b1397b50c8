import { expect, it } from 'vitest';
import { describeInBrowser, freshAppInBrowser } from '../support/browserSuite.js';
import { openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { TEMPLATED_MODELS, templatedLlamaPath } from '../fixtures/templatedLlama.js';

/**
 * The Models screen says which chat wrapper a model file resolves to and whether it reasons
 * before the file is loaded (issue 21.2): the engine reads the GGUF header only.
 */

describeInBrowser('chat wrapper of a model file on the Models screen', () => {
  const app = freshAppInBrowser();

  it('Inspect shows the wrapper and how the model reasons, and loads nothing', async () => {
    const { context, page, consoleErrors } = await openApp(app.browser, app.server.authUrl);
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

      const status = (await app.server.engine.call('models:status', {})) as {
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
