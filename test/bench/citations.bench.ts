import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type {
  Answer,
  ChunkView,
  Citation,
  DocumentDetail,
  DocumentPage,
  DocumentPageText,
} from '../../src-main/engine/api/contract.js';
import { loadDocument } from '../../src-main/engine/ingest/load/loadDocument.js';
import { createMcpServer } from '../../src-main/mcp.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { e2eRules, E2E_CORPUS_PATHS } from '../support/e2eCorpus.js';
import { startE2eServer } from '../support/e2eServer.js';
import { writePdf } from '../support/pdfWriter.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { call, runJobToEnd } from '../support/tempEngine.js';
import { QaEmbedder, WIFE_OF_KING } from '../unit/qa/support/qaScript.js';

/**
 * Opening a cited PDF page with its highlight (issue 26: ≤ 1 s for a 500-page document), and
 * MCP `search_passages` against the Api call it wraps (`qa:ask`, vector, retrieval only).
 *
 * Engine side: `docs:page` (the cited page as kept at indexing) + `docs:file` for citations
 * into the PDF, the first click apart from the later ones; and, for a document indexed before its
 * pages were kept, the whole file read again (`docs:source`'s read). Render: Chromium, the Ask
 * screen's citation dialog, click to the page drawn with its highlight.
 *
 *   npm run bench citations -- --pages 500 --n 20
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: { pages: { type: 'string', default: '500' }, n: { type: 'string', default: '20' } },
  });
  const pageCount = Number(values.pages);
  const n = Number(values.n);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-citations-'));
  const pdfPath = join(dir, 'ithaca-500.pdf');
  const pages = Array.from({ length: pageCount }, (_, i) =>
    [
      `Page ${i + 1} of the chronicle of Ithaca.`,
      `In year ${i + 1} Penelope, the wife of the king of Ithaca, waited for Odysseus.`,
      `The suitors of year ${i + 1} feasted in the hall and the loom stood by the wall.`,
      `Telemachus counted ${i + 1} ships in the harbour that spring.`,
    ].join('\n'),
  );
  const bytes = writePdf({ pages });
  writeFileSync(pdfPath, bytes);
  const server = await startE2eServer({
    models: { llm: new ScriptedLlm(e2eRules()), embedder: new QaEmbedder() },
  });
  try {
    const engine = server.engine;
    await call(engine, 'kb:create', { name: 'bench' });
    await call(engine, 'docs:add', { kb: 'bench', paths: [...E2E_CORPUS_PATHS, pdfPath] });
    const t0 = performance.now();
    await runJobToEnd(engine, 'index:start', { kb: 'bench' });
    const { rows } = await call<DocumentPage>(engine, 'docs:list', { kb: 'bench', limit: 100 });
    const pdf = rows.find((r) => r.path === pdfPath)!;
    console.log(
      `${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}; ${pageCount}-page PDF (${(bytes.length / 1024).toFixed(0)} KiB, ${pdf.chunkCount} chunks), indexed with scripted models in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // Engine side: what a click asks of the engine (the cited page and the file's bytes), for
    // passages spread over the document.
    const { chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'bench', id: pdf.id });
    const spread = Array.from({ length: n + 1 }, (_, i) => chunks[Math.floor((i * (chunks.length - 1)) / n)]!);
    const open = async (chunk: ChunkView) => {
      const t = performance.now();
      const [page] = await Promise.all([
        call<DocumentPageText>(engine, 'docs:page', {
          kb: 'bench',
          id: pdf.id,
          startOffset: chunk.startOffset,
          endOffset: chunk.endOffset,
        }),
        call(engine, 'docs:file', { kb: 'bench', id: pdf.id }),
      ]);
      if (page.readFrom !== 'index' || page.page !== chunk.page) throw new Error('docs:page: not the page kept');
      return performance.now() - t;
    };
    const first = await open(spread[0]!);
    const warm: number[] = [];
    for (const chunk of spread.slice(1)) warm.push(await open(chunk));
    console.log(
      `engine, docs:page + docs:file (ms; pages ${spread[0]!.page}…${spread.at(-1)!.page}): first click ${first.toFixed(0)}; later clicks ${stats(warm)}`,
    );
    // What a document indexed before its pages were kept costs on its first click: the file read again.
    let t = performance.now();
    await call(engine, 'docs:source', { kb: 'bench', id: pdf.id });
    const reread = performance.now() - t;
    t = performance.now();
    await loadDocument(pdfPath, {});
    const extraction = performance.now() - t;
    console.log(
      `engine, the fallback (no pages kept), docs:source (ms): first read ${reread.toFixed(0)} (a loader thread started, the file read and its ${pageCount} pages extracted again; the extraction alone, in process: ${extraction.toFixed(0)})`,
    );

    // Render: click a citation into the PDF, until its page is drawn with the highlight.
    const browser = await launchChromium();
    try {
      const { context, page } = await openApp(browser, server.authUrl);
      await page.getByTestId('nav-ask').click();
      await page.getByTestId('ask-question').fill(WIFE_OF_KING.en);
      await page.getByTestId('ask-strategy').selectOption('vector');
      await page.getByTestId('ask-submit').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="ask-run-vector"]')?.getAttribute('data-status') === 'done',
        null,
        { timeout: 120_000 },
      );
      const links = page.locator(`[data-testid="citation-link"][data-document-id="${pdf.id}"]`);
      const count = await links.count();
      if (count === 0) throw new Error('the answer cites no passage of the PDF');
      const clicks: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await links.nth(i % count).click();
        await page.locator('[data-testid="pdf-page"][data-drawn="true"]').waitFor({ timeout: 30_000 });
        await page.getByTestId('pdf-highlight').first().waitFor();
        clicks.push(performance.now() - t);
        await page.keyboard.press('Escape');
        await page.getByTestId('passage-dialog').waitFor({ state: 'hidden' });
      }
      const cited = await links.evaluateAll((els) => els.map((e) => e.textContent ?? ''));
      console.log(
        `Chromium, click → page drawn with its highlight (ms; ${count} cited passages of the PDF, ${cited.slice(0, 3).join(' / ')}…): first click ${clicks[0]!.toFixed(0)} (PDF.js loaded, the file fetched and parsed); later clicks ${stats(clicks.slice(1))}`,
      );
      await context.close();
    } finally {
      await browser.close();
    }

    // MCP search_passages against the Api call it wraps.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(engine).connect(serverSide);
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(clientSide);
    const api: number[] = [];
    const mcp: number[] = [];
    const askApi = async (): Promise<void> => {
      const t = performance.now();
      const job = await runJobToEnd(engine, 'qa:ask', {
        kb: 'bench',
        question: WIFE_OF_KING.en,
        strategy: 'vector',
        retrievalOnly: true,
      });
      api.push(performance.now() - t);
      if (!(job.result as Answer).evidence.flatMap((e): Citation[] => e.citations).length)
        throw new Error('retrieval found nothing');
    };
    const askMcp = async (): Promise<void> => {
      const t = performance.now();
      const result = await client.callTool({
        name: 'search_passages',
        arguments: { kb: 'bench', query: WIFE_OF_KING.en },
      });
      mcp.push(performance.now() - t);
      if (result.isError) throw new Error(`search_passages failed: ${JSON.stringify(result.content)}`);
    };
    // Taking turns at going first, so that neither always runs right after the other (the MCP
    // layer itself, SDK transport and JSON, measured 0.2 ms before and 0.2 ms after the job).
    for (let i = 0; i < n; i++) for (const ask of i % 2 === 0 ? [askApi, askMcp] : [askMcp, askApi]) await ask();
    await client.close();
    console.log(`Api qa:ask (vector, retrieval only) (ms): ${stats(api)}`);
    console.log(`MCP search_passages, in-memory transport (ms): ${stats(mcp)}`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `p50 ${at(0.5).toFixed(0)}, p95 ${at(0.95).toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)} (n = ${values.length})`;
}
