import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { E2E_CORPUS_PATHS } from '../support/e2eCorpus.js';
import { appConsoleErrors, axeViolations, settled } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { countStatements } from '../support/independentRdf.js';

/**
 * Issue 7's flow through the real renderer and the real engine, with the scripted corpus model
 * given through the engine's test hook: create a KB, add the multilingual Odysseus corpus, index
 * it, ask the Ithaca question in Italian, open a citation, browse Odysseus, query SPARQL, export
 * Turtle (re-read by N3.js), delete a document, and pause / resume / cancel a job.
 * The steps share one page and run in order.
 */

const KB = 'odyssey';
const QUESTION = 'Chi era la moglie del re di Itaca?';
const PH = 'PREFIX ph: <https://polyhop.app/ontology#>';
const TRIPLES_QUERY = `${PH}
SELECT ?source ?relation ?target WHERE {
  ?t a ph:Triple ; ph:hasSource/ph:hasName ?source ; ph:hasRelationship/ph:hasName ?relation ; ph:hasTarget/ph:hasName ?target .
}`;
/** The two facts only the Spanish document states. */
const SPANISH_ONLY_QUERY = `${PH}
SELECT ?source ?relation ?target WHERE {
  ?t a ph:Triple ; ph:hasSource/ph:hasName ?source ; ph:hasRelationship/ph:hasName ?relation ; ph:hasTarget/ph:hasName ?target .
  FILTER(?relation IN ("HELPED", "DEFEATED"))
}`;
const CORPUS_TEXT = E2E_CORPUS_PATHS.map((p) => readFileSync(p, 'utf8')).join('\n');

let server: E2eServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let externalRequests: string[];
let consoleErrors: string[];
let exportDir: string;
const a11y: Record<string, unknown[]> = {};

describeInBrowser('the workflow in the browser', () => {
  beforeAll(async () => {
    exportDir = mkdtempSync(join(tmpdir(), 'polyhop-export-'));
    server = await startE2eServer({ scripted: true });
    browser = await launchChromium();
    ({ context, page, externalRequests, consoleErrors } = await openApp(browser, server.authUrl));
    await page.getByTestId('screen-corpus').waitFor();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    if (exportDir) rmSync(exportDir, { recursive: true, force: true });
  });

  const byId = (id: string) => page.getByTestId(id);

  /** Waits until an element's attribute has a value (or passes a test). */
  async function attribute(
    testId: string,
    name: string,
    expected: string | ((v: string | null) => boolean),
    timeout = 60_000,
  ): Promise<string | null> {
    const test = typeof expected === 'string' ? (v: string | null) => v === expected : expected;
    const locator = byId(testId).first();
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = (await locator.count()) > 0 ? await locator.getAttribute(name) : null;
      if (test(value)) return value;
      if (Date.now() > deadline) {
        const errors = await page.getByTestId('error-view').allTextContents();
        throw new Error(
          `${testId}[${name}] is ${JSON.stringify(value)} after ${timeout} ms${errors.length ? `; error views: ${errors.join(' | ')}` : ''}`,
        );
      }
      await page.waitForTimeout(100);
    }
  }

  /** Screenshots in both themes, and axe-core's serious findings on this state. */
  async function record(name: string): Promise<void> {
    await settled(page);
    await screenshot(page, `${name}-light`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, `${name}-dark`);
    const serious = await axeViolations(page);
    await page.emulateMedia({ colorScheme: 'light' });
    if (serious.length > 0) a11y[name] = serious;
  }

  async function runSparql(query: string): Promise<{ rows: number; text: string }> {
    await byId('nav-graph').click();
    await byId('graph-view-sparql').click();
    await byId('sparql-editor').fill(query);
    await byId('sparql-run').click();
    const results = byId('sparql-results').or(byId('sparql-error'));
    await results.first().waitFor();
    if (await byId('sparql-error').count())
      throw new Error(`SPARQL failed: ${await byId('sparql-error').textContent()}`);
    return {
      rows: Number(await byId('sparql-results').getAttribute('data-rows')),
      text: (await byId('sparql-results').textContent()) ?? '',
    };
  }

  /** Creates a KB and adds the corpus through the Corpus screen. */
  async function createKbWithCorpus(name: string): Promise<void> {
    await byId('nav-corpus').click();
    await byId('kb-create-name').fill(name);
    await byId('kb-create-submit').click();
    await attribute(`kb-row-${name}`, 'aria-current', 'true');
    expect(await byId('kb-switcher').inputValue()).toBe(name);
    await byId('docs-add-paths').fill(E2E_CORPUS_PATHS.join('\n'));
    await byId('docs-add-submit').click();
    await byId('docs-add-result').waitFor();
    expect(await byId('docs-add-result').getAttribute('data-added')).toBe(String(E2E_CORPUS_PATHS.length));
    expect(await byId('docs-add-result').getAttribute('data-errors')).toBe('0');
    await byId('docs-total')
      .filter({ hasText: `(${E2E_CORPUS_PATHS.length})` })
      .waitFor();
  }

  describe('the Polyhop workflow in the browser', () => {
    it('creates a knowledge base and adds the multilingual corpus', async () => {
      await createKbWithCorpus(KB);
      expect(await page.locator('[data-testid^="docs-row-"]').count()).toBe(E2E_CORPUS_PATHS.length);
    });

    it('indexes it with the scripted model, progress reaching 100 %', async () => {
      await byId('index-start').click();
      await attribute('job-progress', 'data-status', 'done', 90_000);
      expect(await byId('job-percent').getAttribute('data-percent')).toBe('100');
      const stages = await page.locator('[data-testid^="job-stage-"]').evaluateAll((els) =>
        els.map((e) => ({
          stage: e.getAttribute('data-testid')!.slice('job-stage-'.length),
          done: e.getAttribute('data-done'),
          total: e.getAttribute('data-total'),
        })),
      );
      expect(stages.map((s) => s.stage)).toEqual(
        expect.arrayContaining(['ingest', 'preprocess', 'map', 'disambiguate', 'enrich', 'reduce', 'embed']),
      );
      for (const s of stages) expect(s.done, s.stage).toBe(s.total);
      // Every document indexed, none in error, and the injected model did the work.
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll('[data-testid^="docs-row-"]')].filter(
            (r) => r.getAttribute('data-status') === 'indexed',
          ).length === n,
        E2E_CORPUS_PATHS.length,
        { timeout: 15_000 },
      );
      expect(await byId('index-errors').count()).toBe(0);
      expect(server.models!.scripted.callsOf('mder/map').length).toBeGreaterThanOrEqual(E2E_CORPUS_PATHS.length);
      await record('corpus-indexed');
    });

    it('answers the Ithaca question in Italian with the dr strategy, citing its sources', async () => {
      await byId('nav-ask').click();
      await byId('ask-question').fill(QUESTION);
      await byId('ask-strategy').selectOption('dr');
      await byId('ask-submit').click();
      const status = await attribute(
        'ask-run-dr',
        'data-status',
        (v) => v === 'done' || v === 'failed' || v === 'cancelled',
        60_000,
      );
      if (status !== 'done') throw new Error(`the question ended ${status}: ${await byId('ask-run-dr').textContent()}`);
      const answer = (await byId('answer-text').textContent()) ?? '';
      expect(answer).toContain('Penelope');
      expect(answer).toMatch(/moglie del re di Itaca/); // answered in the question's language
      // The short answer is shown, before the explained one.
      expect(await byId('short-answer').textContent()).toContain('Penelope');
      expect(
        await page.evaluate(() => {
          const short = document.querySelector('[data-testid="short-answer"]');
          const full = document.querySelector('[data-testid="answer-text"]');
          return Boolean(short && full && short.compareDocumentPosition(full) & Node.DOCUMENT_POSITION_FOLLOWING);
        }),
      ).toBe(true);
      expect(await byId('citation-link').count()).toBeGreaterThan(0);
      expect(server.models!.scripted.callsOf('qa/dr-decompose').length).toBeGreaterThan(0);
      await record('ask-answered');
    });

    it('opens a citation on its highlighted source passage', async () => {
      const link = byId('citation-link').first();
      const title = (await link.textContent())?.trim();
      await link.click();
      await byId('passage-dialog').waitFor();
      expect(await byId('passage-dialog').textContent()).toContain(title);
      const highlight = (await byId('passage-highlight').textContent())?.trim() ?? '';
      expect(highlight.length).toBeGreaterThan(10);
      // The marked text is the document's own text (not a summary or translation).
      const letters = (s: string) => s.toLowerCase().replace(/[^\p{L}]+/gu, '');
      expect(letters(CORPUS_TEXT)).toContain(letters(highlight));
      await record('ask-citation');
      await byId('passage-dialog-close').click();
      await byId('passage-dialog').waitFor({ state: 'detached' });
    });

    it('browses the entity "Odysseus": card, merged aliases, triples, neighbourhood', async () => {
      await byId('nav-graph').click();
      await byId('graph-view-explore').click();
      await byId('graph-search-input').fill('Odysseus');
      await byId('graph-search-submit').click();
      await byId('graph-results').waitFor();
      await page.locator('[data-testid^="graph-result-"][data-name="Odysseus"]').click();
      await byId('entity-card').waitFor();
      expect(await byId('entity-name').textContent()).toContain('Odysseus');
      const card = (await byId('entity-card').textContent()) ?? '';
      expect(card).toContain('Ulysses'); // the Italian document's name for him, merged
      const outgoing = (await byId('entity-outgoing').textContent()) ?? '';
      for (const fact of ['KING_OF', 'Ithaca', 'MARRIED_TO', 'Penelope']) expect(outgoing).toContain(fact);
      expect(await byId('entity-summary').textContent()).toContain('Odysseus');
      await byId('graph-neighbourhood').waitFor();
      expect(await page.locator('[data-testid^="graph-node-"]').count()).toBeGreaterThan(1);
      await attribute('graph-canvas', 'data-ready', 'true', 30_000); // sigma drew it
      await record('graph-entity');
    });

    it('runs a SPARQL query over the RDF view', async () => {
      const { rows, text } = await runSparql(TRIPLES_QUERY);
      expect(rows).toBeGreaterThanOrEqual(15);
      for (const fact of ['KING_OF', 'MARRIED_TO', 'Penelope', 'Ithaca']) expect(text).toContain(fact);
      await record('graph-sparql');
    });

    it('exports the knowledge base as Turtle that an independent parser reads', async () => {
      const file = join(exportDir, `${KB}.ttl`);
      await byId('graph-view-transfer').click();
      await byId('export-scope-all').check();
      await byId('export-format').selectOption('turtle');
      await byId('export-path').fill(file);
      await byId('export-submit').click();
      await byId('export-done').or(byId('error-view')).first().waitFor({ timeout: 60_000 });
      expect(
        await byId('export-done').count(),
        await page
          .getByTestId('error-view')
          .allTextContents()
          .then((t) => t.join(' | ')),
      ).toBe(1);
      expect(await countStatements(file)).toBeGreaterThan(0);
      expect(readFileSync(file, 'utf8')).toContain('KING_OF');
      await record('graph-export');
    });

    it('deletes a document, and its triples are gone', async () => {
      const before = await runSparql(SPANISH_ONLY_QUERY);
      expect(before.rows).toBe(2);

      await byId('nav-corpus').click();
      await byId('docs-open').filter({ hasText: 'telemaco' }).click();
      await byId('doc-detail').waitFor();
      await byId('doc-triples').waitFor();
      expect(await byId('doc-triples').textContent()).toContain('HELPED');
      await byId('doc-remove').click();
      await byId('confirm-dialog').waitFor();
      await byId('confirm-ok').click();
      await byId('doc-detail').waitFor({ state: 'detached' });
      await byId('docs-total')
        .filter({ hasText: `(${E2E_CORPUS_PATHS.length - 1})` })
        .waitFor();
      expect(await byId('docs-open').filter({ hasText: 'telemaco' }).count()).toBe(0);

      const after = await runSparql(SPANISH_ONLY_QUERY);
      expect(after.rows).toBe(0);
      // Facts other documents also state stay.
      expect((await runSparql(TRIPLES_QUERY)).text).toContain('KING_OF');
    });

    it('pauses, resumes and cancels an indexing job, then finishes it', async () => {
      await createKbWithCorpus('odyssey-slow');
      server.models!.throttle.ms = 1500; // every model call takes 1.5 s: the job stays running
      try {
        await byId('index-start').click();
        const first = await attribute('job-progress', 'data-job-id', (v) => v !== null);
        await attribute('job-progress', 'data-status', 'running');
        await byId('index-pause').click();
        await attribute('job-progress', 'data-status', 'paused', 30_000);
        expect(await byId('index-resume').count()).toBe(1);
        expect(await byId('index-start').count()).toBe(0);

        await byId('index-resume').click();
        await attribute('job-progress', 'data-job-id', (v) => v !== null && v !== first);
        await attribute('job-progress', 'data-status', 'running');
        await byId('index-cancel').click();
        await attribute('job-progress', 'data-status', 'cancelled', 30_000);
        await byId('index-start').waitFor();
        expect(await page.locator('[data-testid^="docs-row-"][data-status="indexed"]').count()).toBeLessThan(
          E2E_CORPUS_PATHS.length,
        );
      } finally {
        server.models!.throttle.ms = 0;
      }
      await byId('index-start').click();
      await attribute('job-progress', 'data-status', 'done', 90_000);
      await page.waitForFunction(
        (n) =>
          [...document.querySelectorAll('[data-testid^="docs-row-"]')].filter(
            (r) => r.getAttribute('data-status') === 'indexed',
          ).length === n,
        E2E_CORPUS_PATHS.length,
        { timeout: 15_000 },
      );
    });

    it('stayed offline, error-free and accessible throughout', () => {
      // One assertion, so a failure shows all three.
      expect({ seriousAxeViolations: a11y, externalRequests, consoleErrors: appConsoleErrors(consoleErrors) }).toEqual({
        seriousAxeViolations: {},
        externalRequests: [],
        consoleErrors: [],
      });
    });
  });
});
