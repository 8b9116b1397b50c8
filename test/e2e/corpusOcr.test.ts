import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { DocumentDetail, DocumentPage } from '../../src-main/engine/api/contract.js';
import { documentLimitOptions } from '../../src-main/engine/api/handlers/indexing.js';
import { ingestPending } from '../../src-main/engine/mder/ingestPending.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { scanOf, writeScanPdf } from '../support/scanWriter.js';
import { call } from '../support/tempEngine.js';

/**
 * A document's detail on the Corpus screen says which of its pages OCR read, in which languages
 * and how sure it was, flagging pages read with low confidence: a real scan read by OCR at
 * indexing, and a record of a poor scan (one page at 41 %, as OCR reads a faint photocopy) kept
 * as indexing keeps it, since a clean generated scan never reads that low.
 */
let server: E2eServer;
let browser: Browser;
const embedder = new NgramEmbedder(32);
const ids: Record<'scan' | 'faint' | 'text', number> = { scan: 0, faint: 0, text: 0 };

beforeAll(async () => {
  server = await startE2eServer({ models: { embedder } });
  const folder = join(server.dataDir, 'scans');
  mkdirSync(folder);
  const files = {
    scan: writeScanPdf([
      { text: 'The first page has a text layer.' },
      scanOf(['The harbour master counted twelve ships', 'before the storm reached the coast.']),
    ]),
    faint: writeScanPdf([{ text: 'Page one of the faint copy.' }, { text: 'Page two.' }, { text: 'Page three.' }]),
    text: writeScanPdf([{ text: 'A page with a text layer only.' }]),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(folder, `${name}.pdf`), bytes);
  await call(server.engine, 'kb:create', { name: 'scans' });
  await call(server.engine, 'docs:add', { kb: 'scans', paths: [folder] });
  const { kb } = server.engine.kbs.get('scans');
  await ingestPending(kb, { embedder, ...documentLimitOptions(server.engine.settings.get().documentLimits, ['eng']) });
  const { rows } = await call<DocumentPage>(server.engine, 'docs:list', { kb: 'scans', limit: 10 });
  for (const name of Object.keys(ids) as (keyof typeof ids)[])
    ids[name] = rows.find((r) => r.path.endsWith(`${name}.pdf`))!.id;
  kb.ocr.replace(ids.faint, {
    languages: ['eng'],
    pages: [
      { page: 1, confidence: 88, reason: 'no text layer' },
      { page: 2, confidence: 82, reason: 'no text layer' },
      { page: 3, confidence: 41, reason: 'unreadable text' },
    ],
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('OCR on the Corpus screen', () => {
  it("a document's detail says which pages OCR read and how sure it was; low-confidence pages are flagged", async () => {
    const scan = await call<DocumentDetail>(server.engine, 'docs:get', { kb: 'scans', id: ids.scan });
    expect(scan.ocr?.pages.map((p) => p.page)).toEqual([2]);
    const confidence = scan.ocr!.pages[0]!.confidence;
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      await page.getByTestId('nav-corpus').click();
      await page.getByTestId('kb-switcher').selectOption('scans');
      await settled(page);
      const open = async (title: string) => {
        await page.getByTestId('docs-open').filter({ hasText: title }).click();
        await page.locator(`[data-testid="doc-detail"][data-doc-id="${ids[title as keyof typeof ids]}"]`).waitFor();
      };

      await open('scan');
      const summary = page.getByTestId('doc-ocr-summary');
      expect(await summary.textContent()).toBe(`1 page read by OCR (eng), confidence ${confidence}%`);
      expect(await page.getByTestId('doc-ocr-low').count()).toBe(confidence < 60 ? 1 : 0);

      await open('faint');
      await summary.filter({ hasText: '3 pages' }).waitFor();
      expect(await summary.textContent()).toBe('3 pages read by OCR (eng), mean confidence 70%, lowest page 3: 41%');
      expect(await page.getByTestId('doc-ocr-low').textContent()).toMatch(/^Low confidence on page 3: /);
      await page.getByTestId('doc-ocr').locator('summary').click();
      expect(await page.getByTestId('doc-ocr-page-3').textContent()).toBe('Page 3: 41% (text layer unreadable)');
      const flagged = await page
        .locator('[data-testid^="doc-ocr-page-"][data-low="true"]')
        .evaluateAll((els) => els.map((e) => e.dataset.testid));
      expect(flagged).toEqual(['doc-ocr-page-3']);

      await open('text');
      expect(await page.getByTestId('doc-ocr').count()).toBe(0);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
