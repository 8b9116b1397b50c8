import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Answer,
  Citation,
  DocumentDetail,
  DocumentPageText,
  DocumentSource,
  StrategyName,
} from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { pageTexts } from '../../../src-main/engine/ingest/pageTexts.js';
import { pageText, type PdfTextItem } from '../../../src-renderer/src/lib/pdfTextMap.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { writeIthacaPdf } from '../../support/ithacaPdf.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';
import { corpusLlm } from '../security/support/fullRun.js';

/**
 * `docs:page`: the page a citation starts on, as kept at indexing (schema v16), with the passage's
 * offsets on it; documents whose pages were not kept (indexed before v16) are read again.
 */
let engine: Engine;
let dispose: () => Promise<void>;
const ithaca = writeIthacaPdf('polyhop-page-', [
  'Penelope, the wife of the king of Ithaca, kept the suitors waiting.\nTelemachus sailed to Pylos.',
]);
const pdfPath = ithaca.path;
const PDF_PAGES = ithaca.pages;
let pdfId: number;
const citations: Citation[] = [];

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: [...CORPUS_FILES.map((f) => join(CORPUS_DIR, f)), pdfPath] });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
  const { rows } = await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
  pdfId = rows.find((r) => r.path === pdfPath)!.id;
  const runs: [string, StrategyName][] = [
    [WIFE_OF_KING.en, 'vector'],
    ['How long did Penelope wait for Odysseus, and what did she weave?', 'vector'],
    [WIFE_OF_KING.it, 'dr'],
  ];
  for (const [question, strategy] of runs) {
    const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', question, strategy });
    expect(job.error).toBeNull();
    citations.push(...(job.result as Answer).evidence.flatMap((e) => e.citations));
  }
});
afterAll(async () => {
  await dispose();
  ithaca.remove();
});

const page = (c: Pick<Citation, 'documentId' | 'startOffset' | 'endOffset'>) =>
  call<DocumentPageText>(engine, 'docs:page', {
    kb: 'odyssey',
    id: c.documentId,
    startOffset: c.startOffset,
    endOffset: c.endOffset,
  });
const chunkText = async (c: Citation) =>
  (await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id: c.documentId })).chunks.find(
    (k) => k.id === c.chunkId,
  )!.text;

/** The passage's text on its page: the whole chunk, or the part of it before the page ends. */
async function expectOnItsPage(c: Citation, p: DocumentPageText): Promise<void> {
  const chunk = await chunkText(c);
  const onPage = p.text.slice(p.passage.start, p.passage.end);
  expect(p.page).toBe(c.page);
  if (p.continues) expect(chunk.startsWith(onPage) && onPage.length < chunk.length).toBe(true);
  else expect(onPage, `${c.documentTitle} [${c.startOffset}, ${c.endOffset})`).toBe(chunk);
  const { text } = await call<DocumentSource>(engine, 'docs:source', { kb: 'odyssey', id: c.documentId });
  expect(text.slice(p.startOffset, p.endOffset)).toBe(p.text);
  expect(p.startOffset + p.passage.start).toBe(c.startOffset);
}

describe('docs:page', () => {
  it('finds every cited passage on its page: a PDF page as indexed, the text layer PDF.js draws', async () => {
    const intoPdf = citations.filter((c) => c.documentId === pdfId);
    expect(intoPdf.length).toBeGreaterThan(0);
    const pdf = await getDocumentProxy(new Uint8Array(readFileSync(pdfPath)), { isEvalSupported: false });
    try {
      for (const c of intoPdf) {
        const p = await page(c);
        expect(p.readFrom).toBe('index');
        await expectOnItsPage(c, p);
        const items = (await (await pdf.getPage(p.page!)).getTextContent()).items as PdfTextItem[];
        expect(pageText(items).text).toBe(p.text);
      }
    } finally {
      await pdf.destroy();
    }
  });

  it('gives each page of the PDF as indexed for a passage on it (chunks of a small file all start on page 1)', async () => {
    const { text } = await call<DocumentSource>(engine, 'docs:source', { kb: 'odyssey', id: pdfId });
    for (const [i, written] of PDF_PAGES.entries()) {
      const startOffset = text.indexOf(written);
      const p = await page({ documentId: pdfId, startOffset, endOffset: startOffset + written.length });
      expect(p).toMatchObject({ page: i + 1, text: written, startOffset, passage: { start: 0, end: written.length } });
      expect(p).toMatchObject({ continues: false, readFrom: 'index' });
    }
  });

  it('shows a document without pages whole, the passage at its offsets (the file read again)', async () => {
    const others = citations.filter((c) => c.documentId !== pdfId);
    expect(others.length).toBeGreaterThan(1);
    for (const c of others) {
      const p = await page(c);
      expect(p).toMatchObject({ page: null, startOffset: 0, readFrom: 'file', continues: false });
      await expectOnItsPage(c, p);
    }
  });

  it('reads a PDF whose pages were not kept (indexed before schema v16) again, to the same page', async () => {
    const intoPdf = citations.filter((c) => c.documentId === pdfId);
    const kept = await Promise.all(intoPdf.map(page));
    const { kb } = engine.kbs.get('odyssey');
    const starts = kb.pages.startsOf(pdfId);
    expect(starts.map((s) => s.page)).toEqual([1, 2, 3]);
    kb.pages.replace(pdfId, []);
    try {
      for (const [i, c] of intoPdf.entries()) {
        const p = await page(c);
        expect(p).toEqual({ ...kept[i], readFrom: 'file' });
        await expectOnItsPage(c, p);
      }
    } finally {
      const { text, pages } = await call<DocumentSource>(engine, 'docs:source', { kb: 'odyssey', id: pdfId });
      kb.pages.replace(pdfId, pageTexts({ text, pages: pages! }));
    }
  });

  it('cuts a passage that runs on to the next page at the page end, and says it continues', async () => {
    const [, second] = engine.kbs.get('odyssey').kb.pages.startsOf(pdfId);
    const from = second!.startOffset - 10;
    const p = await page({ documentId: pdfId, startOffset: from, endOffset: second!.startOffset + 8 });
    expect(p).toMatchObject({ page: 1, continues: true, readFrom: 'index' });
    expect(p.text.slice(p.passage.start, p.passage.end)).toBe(PDF_PAGES[0]!.slice(-8));
  });

  it('refuses an inverted span and a document it does not have', async () => {
    const inverted = await engine.call('docs:page', { kb: 'odyssey', id: pdfId, startOffset: 10, endOffset: 2 });
    expect(!inverted.ok && inverted.error.code).toBe('INVALID_REQUEST');
    const missing = await engine.call('docs:page', { kb: 'odyssey', id: 9999, startOffset: 0, endOffset: 1 });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
  });
});
