import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser, type Quad } from 'n3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Answer, HistoryEntry, Thread, ThreadSummary } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import type { E2eServer } from '../support/e2eServer.js';
import { startOdysseyE2eServer } from '../support/odysseyE2eServer.js';
import { call } from '../support/tempEngine.js';
import { WIFE_OF_KING } from '../unit/qa/support/qaScript.js';

/**
 * Answers as data, on the screens: a thread's Markdown and JSON downloads, the graph export's
 * "include answers" option, the SPARQL console over the answers' named graphs, and the stale note
 * in the thread and the history once a cited document is re-indexed, with "ask again".
 * The tests run in order on one KB: the first one's thread is what the next ones find.
 */
let server: E2eServer;
let browser: Browser;
let exportDir: string;

const PROV = 'http://www.w3.org/ns/prov#';
const KING = 'Who was the king of Ithaca?';

beforeAll(async () => {
  exportDir = mkdtempSync(join(tmpdir(), 'polyhop-answers-'));
  ({ server } = await startOdysseyE2eServer());
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (exportDir) rmSync(exportDir, { recursive: true, force: true });
});

const threadsOf = (): Promise<ThreadSummary[]> => call(server.engine, 'threads:list', { kb: 'odyssey' });
const threadOf = (id: number): Promise<Thread> => call(server.engine, 'threads:get', { kb: 'odyssey', thread: id });
const historyOf = (): Promise<HistoryEntry[]> => call(server.engine, 'qa:history', { kb: 'odyssey', limit: 100 });

/** Waits for a run of this strategy to end; throws unless it ended done. */
async function runEnds(page: Page, strategy: string): Promise<void> {
  const run = page.getByTestId(`ask-run-${strategy}`);
  await page
    .locator(
      `[data-testid="ask-run-${strategy}"]:is([data-status="done"],[data-status="failed"],[data-status="cancelled"])`,
    )
    .waitFor({ timeout: 60_000 });
  const status = await run.getAttribute('data-status');
  if (status !== 'done') throw new Error(`the ${strategy} run ended ${status}: ${await run.textContent()}`);
}

/** Asks in the current thread from the Ask screen and waits for the answer. */
async function ask(page: Page, question: string, strategy: string): Promise<void> {
  await page.getByTestId('ask-question').fill(question);
  await page.getByTestId('ask-strategy').selectOption(strategy);
  await page.getByTestId('ask-submit').click();
  await runEnds(page, strategy);
}

/** Clicks the button and reads the file the page saves. */
async function downloaded(page: Page, testId: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
}

const citationsOf = (answer: Answer) => answer.evidence.flatMap((e) => e.citations);

describeInBrowser('answers as data on the screens', () => {
  it('downloads the thread as Markdown and JSON with its turns, answers and citations', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-ask').click();
      await ask(page, WIFE_OF_KING.it, 'vector');
      await byId('ask-question').fill('e dove è nata?');
      await byId('ask-submit').click();
      await byId('followup-ask').click();
      await runEnds(page, 'vector');
      await byId('thread-turn').first().waitFor();
      const [summary] = await threadsOf();
      const thread = await threadOf(summary!.id);
      expect(thread.turns).toHaveLength(2);
      const answers = thread.turns.map((t) => t.answer!);
      expect(answers.every((a) => citationsOf(a).length > 0)).toBe(true);

      const md = await downloaded(page, 'thread-export-markdown');
      expect(md.name).toMatch(/\.md$/);
      for (const [i, turn] of thread.turns.entries()) {
        expect(md.text).toContain(`## ${i + 1}. ${turn.question}`);
        expect(md.text).toContain(turn.answer!.text.trim().split('\n')[0]);
        for (const c of citationsOf(turn.answer!))
          expect(md.text).toContain(
            `${c.documentTitle}${c.page ? ` p. ${c.page}` : ''} [${c.startOffset}–${c.endOffset}]`,
          );
      }
      expect(md.text).toContain(`Asked as: ${thread.turns[1]!.standaloneQuestion}`);

      const json = await downloaded(page, 'thread-export-json');
      expect(json.name).toMatch(/\.json$/);
      const parsed = JSON.parse(json.text) as Thread & { kb: string };
      expect(parsed.kb).toBe('odyssey');
      expect(
        parsed.turns.map((t) => [t.question, t.standaloneQuestion, t.answer?.text, citationsOf(t.answer!)]),
      ).toEqual(thread.turns.map((t) => [t.question, t.standaloneQuestion, t.answer!.text, citationsOf(t.answer!)]));
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists the stored answers' questions from their named graphs in the SPARQL console, a new answer too", async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    /** Runs the query on the Graph screen's console; the rows as shown: answer graph, question, standalone question. */
    async function questionsInConsole(): Promise<string[][]> {
      await byId('nav-graph').click();
      await byId('graph-view-sparql').click();
      await byId('sparql-editor').fill(
        'PREFIX ph: <https://polyhop.app/ontology#>\n' +
          'SELECT ?answer ?question ?asked WHERE { GRAPH ?answer {\n' +
          '  ?answer a ph:Answer ; ph:answers ?q . ?q ph:hasText ?question ; ph:hasStandaloneText ?asked .\n' +
          '} } ORDER BY ?answer',
      );
      await byId('sparql-run').click();
      await byId('sparql-results').or(byId('sparql-error')).first().waitFor();
      if (await byId('sparql-error').count())
        throw new Error(`SPARQL failed: ${await byId('sparql-error').textContent()}`);
      const results = byId('sparql-results');
      const rows = await results
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(await results.getAttribute('data-rows')).toBe(String(rows.length));
      expect(rows.map(([g]) => g)).toEqual(rows.map(() => expect.stringMatching(/\/answer\/\d+$/)));
      return rows;
    }
    try {
      const [summary] = await threadsOf();
      const thread = await threadOf(summary!.id);
      const turns = thread.turns.map((t) => [t.question, t.standaloneQuestion]);
      expect((await questionsInConsole()).map(([, question, asked]) => [question, asked])).toEqual(turns);
      await screenshot(page, 'sparql-answer-graphs');

      // The view is loaded now: an answer given after it is in the view too.
      await byId('nav-ask').click();
      await ask(page, WIFE_OF_KING.en, 'vector');
      expect((await questionsInConsole()).map(([, question, asked]) => [question, asked])).toEqual([
        ...turns,
        [WIFE_OF_KING.en, WIFE_OF_KING.en],
      ]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('exports the answers as named graphs with PROV-O only when "include answers" is ticked', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    /** Exports the whole KB from the Transfer view and parses the file. */
    async function exported(format: 'nquads' | 'turtle', answers: boolean): Promise<Quad[]> {
      const file = join(exportDir, `odyssey-${answers ? 'with' : 'without'}-answers.${format}`);
      await byId('export-scope-all').check();
      await byId('export-format').selectOption(format);
      await byId('export-answers').setChecked(answers);
      await byId('export-path').fill(file);
      await byId('export-submit').click();
      await byId('export-done').or(byId('error-view')).first().waitFor({ timeout: 60_000 });
      expect(await byId('export-done').count(), (await byId('error-view').allTextContents()).join(' | ')).toBe(1);
      const quads = new Parser({ format: format === 'nquads' ? 'N-Quads' : 'Turtle' }).parse(
        readFileSync(file, 'utf8'),
      );
      // The next export's "done" must be its own.
      await page.reload();
      await byId('nav-graph').click();
      await byId('graph-view-transfer').click();
      return quads;
    }
    try {
      await byId('nav-graph').click();
      await byId('graph-view-transfer').click();
      const history = await historyOf();
      const provOf = (quads: Quad[]) => quads.filter((q) => q.predicate.value.startsWith(PROV));

      const plain = await exported('nquads', false);
      expect(plain.length).toBeGreaterThan(0);
      expect(plain.filter((q) => q.graph.termType !== 'DefaultGraph')).toEqual([]);
      expect(provOf(plain)).toEqual([]);

      const withAnswers = await exported('nquads', true);
      const graphs = new Set(withAnswers.filter((q) => q.graph.termType === 'NamedNode').map((q) => q.graph.value));
      expect(graphs.size).toBe(history.length);
      for (const g of graphs) {
        const own = withAnswers.filter((q) => q.graph.value === g);
        expect(own.some((q) => q.subject.value === g && q.predicate.value === `${PROV}wasGeneratedBy`)).toBe(true);
        expect(own.some((q) => q.subject.value === g && q.predicate.value === `${PROV}generatedAtTime`)).toBe(true);
      }
      expect(withAnswers.filter((q) => q.graph.termType === 'DefaultGraph')).toHaveLength(plain.length);

      // Turtle has no named graphs: the answers' statements are in it only when ticked.
      expect(provOf(await exported('turtle', false))).toEqual([]);
      expect(provOf(await exported('turtle', true))).toHaveLength(provOf(withAnswers).length);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('marks the answer stale in the thread and the history once its cited document is re-indexed; ask again works from both', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-ask').click();
      // A fresh browser context remembers no thread: this question starts a new one.
      await ask(page, KING, 'vector');
      const summary = (await threadsOf()).find((t) => t.title === KING)!;
      const [turn] = (await threadOf(summary.id)).turns;
      const cited = citationsOf(turn!.answer!)[0]!;
      expect(await byId('answer-stale').count()).toBe(0);
      const item = byId('history-item').filter({ has: page.getByRole('button', { name: KING, exact: true }) });
      expect(await item.getByTestId('history-stale').count()).toBe(0);

      // Re-indexed from the Corpus screen, as a person would: the document's detail, then an indexing run.
      await byId('nav-corpus').click();
      await byId(`docs-row-${cited.documentId}`).getByTestId('docs-open').click();
      await byId('doc-reindex').click();
      await byId('doc-detail').waitFor({ state: 'detached' });
      const previousJob = await byId('job-progress')
        .getAttribute('data-job-id', { timeout: 1_000 })
        .catch(() => null);
      await byId('index-start').click();
      await page
        .locator(`[data-testid="job-progress"][data-status="done"]:not([data-job-id="${previousJob}"])`)
        .waitFor({ timeout: 90_000 });
      await byId('nav-ask').click();
      const stale = byId('answer-stale');
      await stale.waitFor();
      expect(await stale.getAttribute('data-reason')).toBe('reindexed');
      expect(await stale.textContent()).toContain(cited.documentTitle);
      const historyStale = item.getByTestId('history-stale');
      await historyStale.waitFor();
      expect(await historyStale.getAttribute('data-reason')).toBe('reindexed');
      expect(await historyStale.textContent()).toContain(cited.documentTitle);
      await screenshot(page, 'ask-stale-reindexed');

      // In the thread: a new turn answers it again, not stale; the old one stays marked.
      await byId('answer-ask-again').click();
      await expect
        .poll(async () =>
          (await threadOf(summary.id)).turns.map((t) => [t.standaloneQuestion, t.stale?.reason ?? null]),
        )
        .toEqual([
          [KING, 'reindexed'],
          [KING, null],
        ]);
      await runEnds(page, 'vector');

      // From the history: asked again on its own, a fresh entry that is not stale.
      const before = (await historyOf()).filter((e) => e.answer.question === KING).length;
      await item
        .filter({ has: page.getByTestId('history-stale') })
        .getByTestId('history-reask')
        .click();
      await expect
        .poll(async () => (await historyOf()).filter((e) => e.answer.question === KING).length)
        .toBe(before + 1);
      const [latest] = await historyOf();
      expect([latest!.answer.question, latest!.stale]).toEqual([KING, null]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
