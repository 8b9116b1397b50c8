import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { E2E_CORPUS_PATHS } from '../support/e2eCorpus.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { countStatements } from '../support/independentRdf.js';

/**
 * The desktop window's native dialogs, seen from the renderer. Electron cannot start here, so
 * the page gets a double of the preload's `window.polyhop.dialogs` (defined below, test-only)
 * answering fixed paths; the Api itself stays on browser mode's HTTP, against the real engine.
 * With the double, "Choose files…", "Choose folder…" and "Save as…" fill the path fields and the
 * add and the export really run; without it (plain browser mode) the buttons are absent and the
 * hints say to type paths.
 */

const KB = 'dialogs';

let server: E2eServer;
let browser: Browser;
let work: string;
let folder: string;
let exportFile: string;

/**
 * The dialogs double: answers come from `window.__dialogAnswers` (the test may change them; null
 * is a cancelled dialog), and every call is recorded in `window.__dialogCalls`.
 */
const dialogsDouble = (answers: { files: string[]; folder: string; save: string }) => `(() => {
  window.__dialogAnswers = ${JSON.stringify(answers)};
  window.__dialogCalls = [];
  const answer = (kind, args) => {
    window.__dialogCalls.push({ kind, args });
    return Promise.resolve(window.__dialogAnswers[kind]);
  };
  window.polyhop = {
    dialogs: {
      chooseFiles: () => answer('files', null),
      chooseFolder: () => answer('folder', null),
      chooseSavePath: (options) => answer('save', options),
    },
  };
})()`;

describeInBrowser('native dialogs', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'polyhop-dialogs-'));
    // Two corpus files are "chosen" one by one, the other two come from a "chosen" folder.
    folder = join(work, 'folder');
    mkdirSync(folder);
    for (const file of E2E_CORPUS_PATHS.slice(2)) copyFileSync(file, join(folder, basename(file)));
    exportFile = join(work, 'out', `${KB}-graph.ttl`);
    mkdirSync(join(work, 'out'));
    server = await startE2eServer({ scripted: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function createKb(page: Page, name: string): Promise<void> {
    await page.getByTestId('nav-corpus').click();
    await page.getByTestId('kb-create-name').fill(name);
    await page.getByTestId('kb-create-submit').click();
    await page.getByTestId(`kb-row-${name}`).and(page.locator('[aria-current="true"]')).waitFor();
  }

  describe('native dialogs in the renderer', () => {
    it('without the desktop bridge (browser mode) shows no dialog buttons and asks for typed paths', async () => {
      const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
      try {
        await createKb(page, 'typed');
        await page.getByTestId('docs-add-paths').waitFor();
        expect(await page.getByTestId('docs-add-choose-files').count()).toBe(0);
        expect(await page.getByTestId('docs-add-choose-folder').count()).toBe(0);
        expect(await page.getByTestId('docs-add-hint').textContent()).toContain('browser mode');
        await page.getByTestId('nav-graph').click();
        await page.getByTestId('graph-view-transfer').click();
        await page.getByTestId('export-path').waitFor();
        expect(await page.getByTestId('export-save-as').count()).toBe(0);
        expect(await page.getByTestId('export-hint').textContent()).toContain('browser mode');
        expect(appConsoleErrors(consoleErrors)).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('with the bridge, fills the paths from the pickers and adds the chosen files and folder', async () => {
      const chosenFiles = E2E_CORPUS_PATHS.slice(0, 2);
      const { context, page, consoleErrors } = await openApp(browser, server.authUrl, {
        initScript: dialogsDouble({ files: chosenFiles, folder, save: exportFile }),
      });
      try {
        await createKb(page, KB);
        const paths = page.getByTestId('docs-add-paths');
        expect(await page.getByTestId('docs-add-hint').textContent()).not.toContain('browser mode');

        await page.getByTestId('docs-add-choose-files').click();
        await expect.poll(() => paths.inputValue()).toBe(chosenFiles.join('\n'));
        await page.getByTestId('docs-add-choose-folder').click();
        await expect.poll(() => paths.inputValue()).toBe([...chosenFiles, folder].join('\n'));
        // A cancelled dialog (null) changes nothing; choosing a path again does not repeat it.
        await page.evaluate('window.__dialogAnswers.files = null');
        await page.getByTestId('docs-add-choose-files').click();
        await page.evaluate(`window.__dialogAnswers.folder = ${JSON.stringify(folder)}`);
        await page.getByTestId('docs-add-choose-folder').click();
        await expect.poll(() => page.evaluate<number>('window.__dialogCalls.length')).toBe(4);
        expect(await paths.inputValue()).toBe([...chosenFiles, folder].join('\n'));

        await page.getByTestId('docs-add-submit').click();
        const result = page.getByTestId('docs-add-result');
        await result.waitFor();
        expect(await result.getAttribute('data-added')).toBe(String(E2E_CORPUS_PATHS.length));
        expect(await result.getAttribute('data-errors')).toBe('0');
        const titles = (await server.engine.call('docs:list', { kb: KB, offset: 0, limit: 50 })) as {
          ok: boolean;
          value?: { rows: { path: string }[] };
        };
        expect(titles.ok).toBe(true);
        expect(titles.value!.rows.map((r) => r.path).sort()).toEqual(
          [...chosenFiles, ...E2E_CORPUS_PATHS.slice(2).map((f) => join(folder, basename(f)))].sort(),
        );

        await page.getByTestId('index-start').click();
        await page.locator('[data-testid="job-progress"][data-status="done"]').waitFor({ timeout: 90_000 });
        expect(appConsoleErrors(consoleErrors)).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('with the bridge, "Save as…" names the export file and the export writes it', async () => {
      const { context, page, consoleErrors } = await openApp(browser, server.authUrl, {
        initScript: dialogsDouble({ files: [], folder, save: exportFile }),
      });
      try {
        await page.getByTestId('kb-switcher').selectOption(KB);
        await page.getByTestId('nav-graph').click();
        await page.getByTestId('graph-view-transfer').click();
        await page.getByTestId('export-scope-all').check();
        expect(await page.getByTestId('export-hint').textContent()).not.toContain('browser mode');

        // The proposed name and extension follow the scope and the format.
        await page.getByTestId('export-format').selectOption('ntriples');
        await page.evaluate('window.__dialogAnswers.save = null');
        await page.getByTestId('export-save-as').click();
        await expect
          .poll(() => page.evaluate<unknown>('window.__dialogCalls.at(-1)?.args'))
          .toEqual({ defaultName: KB, extension: 'nt' });
        expect(await page.getByTestId('export-path').inputValue()).toBe(''); // cancelled

        await page.getByTestId('export-format').selectOption('turtle');
        await page.evaluate(`window.__dialogAnswers.save = ${JSON.stringify(exportFile)}`);
        await page.getByTestId('export-save-as').click();
        await expect.poll(() => page.getByTestId('export-path').inputValue()).toBe(exportFile);
        expect(await page.evaluate<unknown>('window.__dialogCalls.at(-1)?.args')).toEqual({
          defaultName: KB,
          extension: 'ttl',
        });

        await page.getByTestId('export-submit').click();
        await page.getByTestId('export-done').or(page.getByTestId('error-view')).first().waitFor({ timeout: 60_000 });
        expect(
          await page.getByTestId('export-done').count(),
          (await page.getByTestId('error-view').allTextContents()).join(' | '),
        ).toBe(1);
        expect(existsSync(exportFile)).toBe(true);
        expect(await countStatements(exportFile)).toBeGreaterThan(0);
        expect(readFileSync(exportFile, 'utf8')).toContain('KING_OF');
        await settled(page);
        expect(appConsoleErrors(consoleErrors)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
