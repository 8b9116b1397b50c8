import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';

/**
 * The Corpus screen's "keep in sync" toggle (issue 25.1): a folder added with it is watched while
 * browser mode runs; a file created in it and one deleted from it show in the document list
 * without a click, a file path says it cannot be watched, and "stop" ends the watch.
 */

const KB = 'synced';

let server: E2eServer;
let browser: Browser;
let folder: string;

async function documentPaths(): Promise<string[]> {
  const reply = (await server.engine.call('docs:list', { kb: KB, offset: 0, limit: 50 })) as {
    ok: boolean;
    value?: { rows: { path: string }[] };
  };
  expect(reply.ok).toBe(true);
  return reply.value!.rows.map((r) => r.path).sort();
}

describeInBrowser('watched folders on the Corpus screen', () => {
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'polyhop-watched-'));
    writeFileSync(join(folder, 'first.txt'), 'Ada Lovelace was born in London in 1815.\n');
    server = await startE2eServer();
    // As browser mode does at start: watched folders are followed while it runs.
    await server.engine.watches.start();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('follows a folder added with the toggle, shows its changes, and stops on request', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await page.getByTestId('kb-create-name').fill(KB);
      await page.getByTestId('kb-create-submit').click();
      await page.getByTestId(`kb-row-${KB}`).and(page.locator('[aria-current="true"]')).waitFor();

      const file = join(folder, 'first.txt');
      await page.getByTestId('docs-add-paths').fill(`${folder}\n${file}`);
      await page.getByTestId('docs-add-watch').check();
      await page.getByTestId('docs-add-submit').click();
      await page.getByTestId('docs-add-result').waitFor();
      expect(await page.getByTestId('docs-add-result').getAttribute('data-added')).toBe('1');
      // The file path cannot be watched, and says so; the folder is followed.
      expect(await page.getByTestId('docs-add-watch-errors').textContent()).toContain(file);
      const row = page.locator(`[data-testid="watched-folder"][data-path="${folder}"]`);
      await row.waitFor();
      expect(await row.getAttribute('data-mode')).toBe('events');
      expect(await page.getByTestId('watched-folder').count()).toBe(1);

      writeFileSync(join(folder, 'second.txt'), 'Charles Babbage designed the Analytical Engine.\n');
      await page.getByTestId('docs-total').filter({ hasText: '(2)' }).waitFor({ timeout: 60_000 });
      expect(await documentPaths()).toEqual([file, join(folder, 'second.txt')].sort());
      await row.getByTestId('watched-folder-sync').waitFor();
      await screenshot(page, 'watched-folders');

      unlinkSync(file);
      await page.getByTestId('docs-total').filter({ hasText: '(1)' }).waitFor({ timeout: 60_000 });
      expect(await documentPaths()).toEqual([join(folder, 'second.txt')]);

      await row.getByTestId('watched-folder-stop').click();
      await page.getByTestId('watched-folders').waitFor({ state: 'detached' });
      const list = (await server.engine.call('watch:list', { kb: KB })) as { ok: boolean; value?: unknown[] };
      expect(list.value).toEqual([]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
