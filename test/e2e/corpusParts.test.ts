import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { DocumentPage } from '../../src-main/engine/api/contract.js';
import { ingestPending } from '../../src-main/engine/mder/ingestPending.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { call } from '../support/tempEngine.js';

/**
 * A mail file's messages and attachments (its parts) are listed under it on the Corpus screen:
 * one row with its parts' count, which opens them in the table, with a way back.
 */
let server: E2eServer;
let browser: Browser;
const embedder = new NgramEmbedder(32);

beforeAll(async () => {
  server = await startE2eServer({ models: { embedder } });
  const folder = join(server.dataDir, 'mail');
  mkdirSync(folder);
  copyFileSync(join(import.meta.dirname, '../fixtures/producers/letters.mbox'), join(folder, 'letters.mbox'));
  copyFileSync(join(import.meta.dirname, '../fixtures/producers/club.odt'), join(folder, 'club.odt'));
  await call(server.engine, 'kb:create', { name: 'mail' });
  await call(server.engine, 'docs:add', { kb: 'mail', paths: [folder] });
  await ingestPending(server.engine.kbs.get('mail').kb, { embedder });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('parts of a file on the Corpus screen', () => {
  it("lists a mail file once with its parts' count; the count opens its parts, and back", async () => {
    const all = await call<DocumentPage>(server.engine, 'docs:list', { kb: 'mail', limit: 100 });
    const mbox = all.rows.find((r) => r.path.endsWith('letters.mbox'))!;
    const parts = all.rows.filter((r) => r.path.startsWith(`${mbox.path}#`));
    expect(parts.length).toBe(4); // three messages and a DOCX attachment
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await page.getByTestId('kb-switcher').selectOption('mail');
      await settled(page);
      await page.getByTestId('docs-total').filter({ hasText: '(2)' }).waitFor();
      const rowIds = async () =>
        (
          await page.locator('[data-testid^="docs-row-"]').evaluateAll((els) => els.map((e) => e.dataset.testid))
        ).sort();
      expect(await rowIds()).toEqual(
        [`docs-row-${mbox.id}`, `docs-row-${all.rows.find((r) => r.path.endsWith('club.odt'))!.id}`].sort(),
      );
      const count = page.getByTestId(`docs-row-${mbox.id}`).getByTestId('docs-parts');
      expect(await count.textContent()).toBe('4 parts');

      await count.click();
      await page.getByTestId('docs-total').filter({ hasText: '(4)' }).waitFor();
      expect(await rowIds()).toEqual(parts.map((p) => `docs-row-${p.id}`).sort());
      expect(await page.getByTestId('docs-container').textContent()).toContain(mbox.title);

      // The filter works within the file's parts.
      await page.getByTestId('docs-filter').fill('Captains');
      await page.getByTestId('docs-total').filter({ hasText: '(1)' }).waitFor();

      await page.getByTestId('docs-back').click();
      await page.getByTestId('docs-total').filter({ hasText: '(1)' }).waitFor(); // the mbox, through its part
      await page.getByTestId('docs-filter').fill('');
      await page.getByTestId('docs-total').filter({ hasText: '(2)' }).waitFor();
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
