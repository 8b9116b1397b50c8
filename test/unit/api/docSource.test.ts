import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Answer,
  Citation,
  DocumentDetail,
  DocumentSource,
  StrategyName,
} from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { pageText, type PdfTextItem } from '../../../src-renderer/src/lib/pdfTextMap.js';
import { writeIthacaPdf } from '../../support/ithacaPdf.js';
import { writePdf } from '../../support/pdfWriter.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';

/** `docs:source`: the document's text, which every cited passage's offsets point into (and, for a PDF, its pages). */
let engine: Engine;
let dispose: () => Promise<void>;
const ithaca = writeIthacaPdf('polyhop-source-');
const pdfPath = ithaca.path;
/** LibreOffice's own DOCX, and an HTML page with what a real page has: markup, an entity, script and style. */
const docxPath = join(CORPUS_DIR, '..', '..', 'fixtures', 'producers', 'club.docx');
const pageDir = mkdtempSync(join(tmpdir(), 'polyhop-source-html-'));
const htmlPath = join(pageDir, 'suitors.html');
writeFileSync(
  htmlPath,
  `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Penelope &amp; the Suitors</title>
<style>body { font-family: serif; } h1::before { content: "Penelope waited"; }</style>
<script>var note = "Penelope waited for nobody";</script></head>
<body><h1>Penelope &amp; the Suitors</h1>
<p>Penelope waited twenty years for Odysseus &amp; kept the suitors at bay.</p>
<h2>What she wove</h2>
<ul><li>She wove a shroud for Laertes by day.</li><li>She undid it by night, so the weaving never ended.</li></ul>
<script>document.title = "She wove a shroud";</script>
</body></html>
`,
);

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
});
afterAll(async () => {
  await dispose();
  ithaca.remove();
  rmSync(pageDir, { recursive: true, force: true });
});

const pdfId = async () =>
  (await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' })).rows.find(
    (r) => r.path === pdfPath,
  )!.id;
const PENELOPE_QUESTION = 'How long did Penelope wait for Odysseus, and what did she weave?';
const source = (id: number) => call<DocumentSource>(engine, 'docs:source', { kb: 'odyssey', id });

describe('docs:source', () => {
  it('finds every cited passage of a run at its offsets in the document text', async () => {
    const citations: Citation[] = [];
    const runs: [string, StrategyName][] = [
      [WIFE_OF_KING.en, 'dr'],
      [WIFE_OF_KING.it, 'vector'],
      [WIFE_OF_KING.fr, 'hyp'],
    ];
    for (const [question, strategy] of runs) {
      const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', question, strategy });
      expect(job.error).toBeNull();
      citations.push(...(job.result as Answer).evidence.flatMap((e) => e.citations));
    }
    expect(citations.length).toBeGreaterThan(3);
    const documents = new Set(citations.map((c) => c.documentId));
    expect(documents.size).toBeGreaterThan(1);
    for (const documentId of documents) {
      const { text, pages, document } = await source(documentId);
      expect(pages).toBeNull(); // Markdown and text files
      const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id: documentId });
      for (const c of citations.filter((x) => x.documentId === documentId)) {
        const chunk = chunks.find((k) => k.id === c.chunkId)!;
        expect(text.slice(c.startOffset, c.endOffset), `${document.title} [${c.startOffset}, ${c.endOffset})`).toBe(
          chunk.text,
        );
      }
    }
  });

  it("gives a PDF's page starts, and each chunk's text lies at its offsets on its page", async () => {
    await call(engine, 'docs:add', { kb: 'odyssey', paths: [pdfPath] });
    await runJobToEnd(engine, 'index:start', { kb: 'odyssey' }); // the script knows no PDF facts: chunks suffice
    const rows = await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
    const id = rows.rows.find((r) => r.path === pdfPath)!.id;
    const { text, pages } = await source(id);
    expect(pages?.map((p) => p.page)).toEqual([1, 2]);
    const pageOf = (offset: number) => pages!.filter((p) => p.startOffset <= offset).at(-1)!.page;
    expect(text.slice(pages![1]!.startOffset)).toContain('Penelope waited');
    const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id });
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
      expect(chunk.page).toBe(pageOf(chunk.startOffset));
    }
  });

  it('finds every cited passage of a run into a PDF at its offsets in the text and on its page (the text layer PDF.js draws)', async () => {
    const id = await pdfId();
    const citations: Citation[] = [];
    for (const [question, strategy] of [
      [PENELOPE_QUESTION, 'vector'],
      [WIFE_OF_KING.en, 'vector'],
    ] as const) {
      const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', question, strategy });
      expect(job.error).toBeNull();
      citations.push(...(job.result as Answer).evidence.flatMap((e) => e.citations).filter((c) => c.documentId === id));
    }
    expect(citations.length).toBeGreaterThan(0);
    const { text, pages } = await source(id);
    const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id });
    const pdf = await getDocumentProxy(new Uint8Array(readFileSync(pdfPath)), { isEvalSupported: false });
    try {
      for (const c of citations) {
        const chunk = chunks.find((k) => k.id === c.chunkId)!;
        expect(text.slice(c.startOffset, c.endOffset)).toBe(chunk.text);
        const first = pages!.findLastIndex((p) => p.startOffset <= c.startOffset);
        expect(c.page).toBe(pages![first]!.page);
        // On each page the passage covers (a chunk may run on to the next page), the page's own text
        // items, joined as the renderer joins them, hold that part of it at the same offsets.
        let covered = '';
        for (let i = first; i < pages!.length && pages![i]!.startOffset < c.endOffset; i++) {
          const start = pages![i]!.startOffset;
          const end = i + 1 < pages!.length ? pages![i + 1]!.startOffset - 2 : text.length; // pages are joined by a blank line
          const items = (await (await pdf.getPage(pages![i]!.page)).getTextContent()).items as PdfTextItem[];
          const onPage = pageText(items).text;
          expect(onPage).toBe(text.slice(start, end));
          const [from, to] = [Math.max(c.startOffset, start) - start, Math.min(c.endOffset, end) - start];
          covered += (covered ? '\n\n' : '') + onPage.slice(from, to);
        }
        expect(covered).toBe(chunk.text);
      }
    } finally {
      await pdf.destroy();
    }
  });

  it('hands over the PDF file itself, and refuses what is not a PDF file of its own', async () => {
    const id = await pdfId();
    const file = await call<{ mime: string; size: number; base64: string }>(engine, 'docs:file', { kb: 'odyssey', id });
    expect(file.mime).toBe('application/pdf');
    expect(Buffer.from(file.base64, 'base64').equals(readFileSync(pdfPath))).toBe(true);
    expect(file.size).toBe(readFileSync(pdfPath).length);
    const rows = await call<{ rows: { id: number; mime: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
    const markdown = rows.rows.find((r) => r.mime === 'text/markdown')!.id;
    const reply = await engine.call('docs:file', { kb: 'odyssey', id: markdown });
    expect(!reply.ok && reply.error.code).toBe('UNSUPPORTED');
  });

  it('finds every cited passage of a run into a DOCX and an HTML page at its offsets in the document text', async () => {
    await call(engine, 'docs:add', { kb: 'odyssey', paths: [docxPath, htmlPath] });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
    const rows = await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
    const ids = [docxPath, htmlPath].map((p) => rows.rows.find((r) => r.path === p)!.id);
    const citations: Citation[] = [];
    for (const question of [PENELOPE_QUESTION, 'Who founded the Marlow Rowing Club, and when did it move to Henley?']) {
      const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', question, strategy: 'vector' });
      expect(job.error).toBeNull();
      citations.push(...(job.result as Answer).evidence.flatMap((e) => e.citations));
    }
    for (const id of ids) {
      const cited = citations.filter((c) => c.documentId === id);
      const { text, pages, document } = await source(id);
      expect(cited.length, document.title).toBeGreaterThan(0);
      expect(pages).toBeNull();
      expect(text).not.toMatch(/font-family|document\.title|&amp;/); // neither script, style nor raw entities
      const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id });
      for (const c of cited) {
        const chunk = chunks.find((k) => k.id === c.chunkId)!;
        expect(text.slice(c.startOffset, c.endOffset), `${document.title} [${c.startOffset}, ${c.endOffset})`).toBe(
          chunk.text,
        );
      }
    }
  });

  it("puts an HTML page's title in its text, searchable, at offsets the chunks keep, without the site's name", async () => {
    const decoyPath = join(pageDir, 'loom.html');
    writeFileSync(
      decoyPath,
      `<html lang="en"><head><title>The Loom of Laertes | Ithaca Gazette</title></head><body><article>
      <h1>The Loom of Laertes</h1><p>Penelope told the suitors she would choose a husband when the shroud was done.</p>
      <p>Each night a maid saw her unpick the day's work, and in the fourth year the maid told the suitors.</p></article></body></html>`,
    );
    await call(engine, 'docs:add', { kb: 'odyssey', paths: [decoyPath] });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
    const rows = await call<{ rows: { id: number; path: string }[] }>(engine, 'docs:list', { kb: 'odyssey' });
    const { kb } = engine.kbs.get('odyssey');
    for (const [path, title] of [
      [htmlPath, 'Penelope & the Suitors'],
      [decoyPath, 'The Loom of Laertes'],
    ] as const) {
      const id = rows.rows.find((r) => r.path === path)!.id;
      const { text } = await source(id);
      expect(text.startsWith(`${title}\n\n`), text).toBe(true);
      const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id });
      for (const chunk of chunks) expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
      const word = title.split(' ').at(-1)!; // "Suitors" is in the page's text too, "Laertes" only in its title
      const found = new Set(kb.textIndex.bm25('chunk', word, 50).map((r) => r.id));
      expect(chunks.some((c) => found.has(c.id) && c.text.startsWith(title))).toBe(true);
    }
    expect((await source(rows.rows.find((r) => r.path === decoyPath)!.id)).text).not.toMatch(/Gazette|\|/);
    expect(kb.textIndex.bm25('chunk', 'Gazette', 50)).toEqual([]);
  });

  it('refuses a file that changed since it was indexed', async () => {
    const id = await pdfId();
    writeFileSync(pdfPath, writePdf({ pages: ['Something else entirely.'] }));
    const reply = await engine.call('docs:source', { kb: 'odyssey', id });
    expect(reply.ok).toBe(false);
    expect(!reply.ok && reply.error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/changed/) });
    const file = await engine.call('docs:file', { kb: 'odyssey', id });
    expect(!file.ok && file.error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/changed/) });
  });
});
