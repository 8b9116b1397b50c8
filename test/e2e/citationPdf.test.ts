import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { DocumentPage, DocumentPageText, DocumentSource } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { e2eRules, E2E_CORPUS_PATHS } from '../support/e2eCorpus.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { writeCmapPdf } from '../support/pdfBuilder.js';
import { writePdf } from '../support/pdfWriter.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { call, runJobToEnd } from '../support/tempEngine.js';
import { QaEmbedder, WIFE_OF_KING } from '../unit/qa/support/qaScript.js';

/**
 * A citation into a PDF opens on its page: PDF.js draws the page into a canvas (CSP without
 * eval, worker from the app's own origin), its text layer over it, the passage highlighted on
 * the text layer at the citation's offsets. "Open in system viewer" is the desktop window's
 * only (a double of the preload's shell bridge stands in for it).
 */
const llm = new ScriptedLlm(e2eRules());
let server: E2eServer;
let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), 'polyhop-citation-pdf-'));
const pdfPath = join(dir, 'ithaca.pdf');
let pdfId: number;
// A page in a CID font the file does not embed, its codes in the predefined UniJIS-UCS2-H CMap.
const JAPANESE = '東京都の天気は晴れです';
const cmapPdfPath = join(dir, 'tokyo.pdf');
let cmapPdfId: number;

beforeAll(async () => {
  writeFileSync(
    pdfPath,
    writePdf({
      pages: [
        'The island of Ithaca lies in the Ionian Sea.\nIts harbour faces east.',
        'Penelope was the wife of Odysseus, the king of Ithaca.\nShe waited twenty years for the king to come home.',
        'Telemachus, their son, sailed to Pylos and Sparta.',
      ],
    }),
  );
  const ucs2 = [...JAPANESE].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('');
  writeFileSync(
    cmapPdfPath,
    writeCmapPdf({ cmap: 'UniJIS-UCS2-H', ordering: 'Japan1', baseFont: 'KozMinPr6N-Regular', hexCodes: ucs2 }),
  );
  server = await startE2eServer({ models: { llm, embedder: new QaEmbedder() } });
  await call(server.engine, 'kb:create', { name: 'odyssey' });
  await call(server.engine, 'docs:add', { kb: 'odyssey', paths: [...E2E_CORPUS_PATHS, pdfPath, cmapPdfPath] });
  expect((await runJobToEnd(server.engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
  const { rows } = await call<DocumentPage>(server.engine, 'docs:list', { kb: 'odyssey', limit: 100 });
  pdfId = rows.find((r) => r.path === pdfPath)!.id;
  cmapPdfId = rows.find((r) => r.path === cmapPdfPath)!.id;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function askVector(page: Page): Promise<void> {
  await page.getByTestId('nav-ask').click();
  await page.getByTestId('ask-question').fill(WIFE_OF_KING.en);
  await page.getByTestId('ask-strategy').selectOption('vector');
  await page.getByTestId('ask-submit').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="ask-run-vector"]')?.getAttribute('data-status') === 'done',
    null,
    { timeout: 60_000 },
  );
}

describeInBrowser('a citation into a PDF', () => {
  it('opens the cited page drawn by PDF.js with the passage highlighted on its text layer', async () => {
    const { context, page, consoleErrors, externalRequests } = await openApp(browser, server.authUrl);
    try {
      await askVector(page);
      const link = page.locator(`[data-testid="citation-link"][data-document-id="${pdfId}"]`).first();
      const [start, end] = [Number(await link.getAttribute('data-start')), Number(await link.getAttribute('data-end'))];
      await link.click();
      await page.locator('[data-testid="pdf-page"][data-drawn="true"]').waitFor({ timeout: 30_000 });
      await screenshot(page, 'ask-citation-pdf-page');
      // The page as the engine kept it at indexing: the document's text read again has it at its offsets.
      const cited = await call<DocumentPageText>(server.engine, 'docs:page', {
        kb: 'odyssey',
        id: pdfId,
        startOffset: start,
        endOffset: end,
      });
      expect(cited.readFrom).toBe('index');
      const source = await call<DocumentSource>(server.engine, 'docs:source', { kb: 'odyssey', id: pdfId });
      expect(source.text.slice(cited.startOffset, cited.endOffset)).toBe(cited.text);
      expect(cited.startOffset + cited.passage.start).toBe(start);
      expect(await page.getByTestId('source-page').textContent()).toContain(String(cited.page));

      // The canvas is drawn: it holds dark (text) pixels on white.
      const dark = await page.getByTestId('pdf-canvas').evaluate((c: HTMLCanvasElement) => {
        const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i]! < 100 && data[i + 3]! > 0) n++;
        return { n, width: c.width, height: c.height };
      });
      expect(dark.width).toBeGreaterThan(300);
      expect(dark.n).toBeGreaterThan(100);

      // The highlight holds exactly the passage's text on this page (text items carry no line breaks)
      // and each of its boxes lies on the text it marks, over the canvas.
      const marks = page.getByTestId('pdf-highlight');
      const marked = (await marks.allTextContents()).join('');
      expect(marked.length).toBeGreaterThan(10);
      expect(marked).toBe(cited.text.slice(cited.passage.start, cited.passage.end).replace(/\n/g, ''));
      const boxes = await marks.evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          const span = el.parentElement!.getBoundingClientRect();
          const canvas = document.querySelector('[data-testid="pdf-canvas"]')!.getBoundingClientRect();
          const inside = (a: DOMRect, b: DOMRect) =>
            a.left >= b.left - 2 && a.right <= b.right + 2 && a.top >= b.top - 2 && a.bottom <= b.bottom + 2;
          // An inline mark's box is its font's ascent to descent (plus padding), taller than the span's line box.
          const middle = (r.top + r.bottom) / 2;
          const onSpan =
            r.left >= span.left - 2 && r.right <= span.right + 2 && middle >= span.top && middle <= span.bottom;
          return { width: r.width, height: r.height, onSpan, onCanvas: inside(r, canvas) };
        }),
      );
      for (const box of boxes) expect(box).toMatchObject({ onSpan: true, onCanvas: true });
      for (const box of boxes) expect(box.width * box.height).toBeGreaterThan(20);
      expect(await marks.first().isVisible()).toBe(true);
      // And painted: on a screenshot of the first mark most pixels carry the highlight's yellow tint
      // (blue well below red), which neither white paper nor black or grey text has.
      expect(await tintedShare(page, (await marks.first().boundingBox())!)).toBeGreaterThan(0.3);
      // Browser mode has no system viewer to open.
      expect(await page.getByTestId('open-in-viewer').count()).toBe(0);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
      expect(externalRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('draws a page whose font is not embedded (a predefined CJK CMap, bundled with the app) with its text layer', async () => {
    const { context, page, consoleErrors, externalRequests } = await openApp(browser, server.authUrl);
    try {
      await askVector(page);
      await page.locator(`[data-testid="citation-link"][data-document-id="${cmapPdfId}"]`).first().click();
      // Drawn, or shown as text with the reason (without the CMaps the text layer is not the indexed text).
      await page
        .locator('[data-testid="pdf-page"][data-drawn="true"], [data-testid="pdf-page-unavailable"]')
        .first()
        .waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('pdf-page-unavailable').allTextContents()).toEqual([]);
      // The text layer PDF.js built from the CMap is the text the engine indexed.
      expect((await page.getByTestId('pdf-text-layer').textContent())?.replace(/\s/g, '')).toBe(JAPANESE);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
      expect(externalRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('offers "Open in system viewer" in the desktop window and asks it for the cited document', async () => {
    const shellDouble = `(() => {
      window.__opened = [];
      window.polyhop = { shell: { openDocument: (r) => { window.__opened.push(r); return Promise.resolve({ opened: true, error: null }); } } };
    })()`;
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl, { initScript: shellDouble });
    try {
      await askVector(page);
      await page.locator(`[data-testid="citation-link"][data-document-id="${pdfId}"]`).first().click();
      await page.getByTestId('open-in-viewer').click();
      expect(await page.evaluate(() => (window as unknown as { __opened: unknown[] }).__opened)).toEqual([
        { kb: 'odyssey', documentId: pdfId },
      ]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/** The share of a screenshot clip's pixels tinted yellow, as the highlight paints them (blue 60 or more below red). */
async function tintedShare(page: Page, clip: { x: number; y: number; width: number; height: number }): Promise<number> {
  const image = await loadImage(await page.screenshot({ clip }));
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, image.width, image.height);
  let tinted = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i]! - data[i + 2]! >= 60) tinted++;
  return tinted / (data.length / 4);
}
