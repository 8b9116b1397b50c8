import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { JobState, KbSummary } from '../../src-main/engine/api/contract.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { writePdf } from '../support/pdfWriter.js';
import { call } from '../support/tempEngine.js';
import { chunks } from '../unit/kb/kbFixtures.js';

/**
 * The Corpus screen says which KB an older Polyhop made still needs its upgrade job, and its
 * button runs `kb:upgrade` (listing KBs starts none); the notice goes once the job is done.
 */
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  await call(server.engine, 'kb:create', { name: 'old' });
  // A PDF on record without its pages, as an index run before v16 left it.
  const { kb } = server.engine.kbs.get('old');
  const pages = ['Page one is about Ithaca.', 'Page two is about Penelope.'];
  const path = join(server.dataDir, 'ithaca.pdf');
  const bytes = writePdf({ pages });
  writeFileSync(path, bytes);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const doc = kb.documents.addDocument({ path, title: 'ithaca', hash, mime: 'application/pdf', size: bytes.length });
  kb.documents.replaceChunks(doc.id, chunks(...pages));
  expect(await call<KbSummary[]>(server.engine, 'kb:list', {})).toMatchObject([{ name: 'old', upgradeDue: true }]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a KB that needs an upgrade, on the Corpus screen', () => {
  it('says so, and its button runs the upgrade job; the notice goes when it is done', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await settled(page);
      const notice = page.getByTestId('kb-upgrade-due-old');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/older Polyhop.*keeps the pages of its PDFs/);
      const upgradeJobs = () =>
        call<JobState[]>(server.engine, 'jobs:list', {}).then((jobs) => jobs.filter((j) => j.kind === 'upgrade'));
      expect(await upgradeJobs()).toEqual([]);

      await page.getByTestId('kb-upgrade-old').click();
      await notice.waitFor({ state: 'detached' });
      expect(await upgradeJobs()).toMatchObject([{ kb: 'old', status: 'done' }]);
      expect(server.engine.kbs.get('old').kb.pages.missing()).toEqual([]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
