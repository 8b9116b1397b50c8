import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { DocumentSource, Thread, ThreadSummary } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import type { E2eServer } from '../support/e2eServer.js';
import { startOdysseyE2eServer } from '../support/odysseyE2eServer.js';
import type { ScriptedLlm } from '../support/ScriptedLlm.js';
import { call, runJobToEnd } from '../support/tempEngine.js';
import { WIFE_OF_KING } from '../unit/qa/support/qaScript.js';

/**
 * The Ask screen as a conversation: a first question opens a thread, an Italian follow-up is
 * rewritten into a standalone question shown for review, edited, and answered by another
 * strategy; a reload keeps the thread; rename and delete.
 */
let llm: ScriptedLlm;
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  ({ server, llm } = await startOdysseyE2eServer());
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Clicks a citation; the whole document text is shown, the passage marked at the citation's offsets and in view. */
async function opensAtPassage(page: Page, link: Locator): Promise<void> {
  const byId = (id: string) => page.getByTestId(id);
  const documentId = Number(await link.getAttribute('data-document-id'));
  await link.click();
  await byId('source-text').waitFor();
  const source = await call<DocumentSource>(server.engine, 'docs:source', { kb: 'odyssey', id: documentId });
  // The whole document is shown, not the chunk alone, and the mark sits at the citation's offsets.
  expect(await byId('source-text').textContent()).toBe(source.text);
  const mark = byId('passage-highlight');
  const [start, end] = [Number(await mark.getAttribute('data-start')), Number(await mark.getAttribute('data-end'))];
  expect(end).toBeGreaterThan(start);
  expect(await mark.textContent()).toBe(source.text.slice(start, end));
  const { chunks } = await call<{ chunks: { id: number; text: string }[] }>(server.engine, 'docs:get', {
    kb: 'odyssey',
    id: documentId,
  });
  const chunkId = Number(await link.getAttribute('data-chunk-id'));
  const chunk = chunks.find((c) => c.id === chunkId)!;
  expect(await mark.textContent()).toBe(chunk.text);
  expect(source.text.length).toBeGreaterThan(chunk.text.length); // more than the chunk is shown
  expect(await mark.isVisible()).toBe(true);
  expect(
    await mark.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    }),
  ).toBe(true);
}

async function runEnds(page: Page, strategy: string): Promise<void> {
  const run = page.locator(`[data-testid="ask-run-${strategy}"]`);
  await page.waitForFunction(
    (s) => {
      const status = document.querySelector(`[data-testid="ask-run-${s}"]`)?.getAttribute('data-status');
      return status === 'done' || status === 'failed' || status === 'cancelled';
    },
    strategy,
    { timeout: 60_000 },
  );
  const status = await run.getAttribute('data-status');
  if (status !== 'done') throw new Error(`the ${strategy} run ended ${status}: ${await run.textContent()}`);
}

const threadsOf = (): Promise<ThreadSummary[]> => call(server.engine, 'threads:list', { kb: 'odyssey' });

describeInBrowser('the Ask screen as a conversation', () => {
  it('rewrites a follow-up for review, answers the edited question, keeps the thread over a reload, renames and deletes it', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-ask').click();
      await byId('ask-question').fill(WIFE_OF_KING.it);
      await byId('ask-strategy').selectOption('dr');
      await byId('ask-submit').click();
      await runEnds(page, 'dr');
      expect(await byId('short-answer').textContent()).toContain('Penelope');
      await byId('thread-item').first().waitFor();
      const [thread] = await threadsOf();
      expect(thread).toMatchObject({ title: WIFE_OF_KING.it, turnCount: 1 });

      // The follow-up is not asked yet: its standalone rewrite waits for review.
      const callsBefore = llm.callsOf('qa/rewrite').length;
      await byId('ask-question').fill('e dove è nata?');
      await byId('ask-strategy').selectOption('vector');
      await byId('ask-submit').click();
      await byId('followup-review').waitFor();
      expect(llm.callsOf('qa/rewrite')).toHaveLength(callsBefore + 1);
      expect(await byId('followup-question').textContent()).toBe('e dove è nata?');
      const suggested = await byId('followup-standalone').inputValue();
      expect(suggested).toBe('Dove è nata Penelope?');
      expect(await byId('followup-review').getAttribute('data-how')).toBe('model');
      expect(await byId('ask-run-vector').count()).toBe(0);
      await screenshot(page, 'ask-thread-followup-review');

      const edited = 'Dove è nata Penelope, la moglie di Ulisse?';
      await byId('followup-standalone').fill(edited);
      await byId('followup-ask').click();
      await runEnds(page, 'vector');
      expect(await byId('followup-review').count()).toBe(0);
      // The first turn stays above, its evidence folded; the new answer is the live run.
      expect(await byId('thread-turn').count()).toBe(1);
      expect(await byId('turn-question').textContent()).toBe(WIFE_OF_KING.it);
      expect(await page.locator('[data-testid="thread-turn"] details.evidence-panel[open]').count()).toBe(0);

      const view = await call<Thread>(server.engine, 'threads:get', { kb: 'odyssey', thread: thread!.id });
      expect(view.turns.map((t) => [t.question, t.standaloneQuestion, t.answer?.strategy])).toEqual([
        [WIFE_OF_KING.it, WIFE_OF_KING.it, 'dr'],
        ['e dove è nata?', edited, 'vector'],
      ]);
      expect(llm.callsOf('qa/rewrite')).toHaveLength(callsBefore + 1); // the reviewed rewrite is not redone

      // A reload shows the same conversation, both turns, the follow-up "asked as" the edit.
      await page.reload();
      await byId('nav-ask').click();
      await page.locator('[data-testid="thread-turn"]').nth(1).waitFor();
      expect(await byId('turn-question').allTextContents()).toEqual([WIFE_OF_KING.it, 'e dove è nata?']);
      expect(await byId('turn-standalone').textContent()).toContain(edited);
      expect(await page.locator('[data-testid="thread-item"][aria-current="true"]').count()).toBe(1);
      await screenshot(page, 'ask-thread-reloaded');

      // Search, rename.
      await byId('thread-search').fill('Ulisse');
      await page.locator('[data-testid="thread-item"]').first().waitFor();
      await byId('thread-search').fill('Telemaco');
      await byId('thread-empty').waitFor();
      await byId('thread-search').fill('');
      await byId('thread-item').first().waitFor();
      await byId('thread-rename').click();
      await byId('thread-rename-input').fill('Penelope');
      await byId('thread-rename-save').click();
      // The title changes at once; the side list after it fetches the threads again.
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid="conversation-title"]')?.textContent === 'Penelope' &&
          document.querySelector('[data-testid="thread-select"]')?.textContent === 'Penelope',
        undefined,
        { timeout: 10_000 },
      );
      expect(await byId('thread-select').textContent()).toBe('Penelope');
      expect((await threadsOf()).map((t) => t.title)).toEqual(['Penelope']);

      // Delete: the conversation is gone; the next question starts a new one.
      await byId('thread-delete').click();
      await byId('thread-delete-confirm').click();
      await byId('thread-empty').waitFor();
      expect(await byId('conversation').count()).toBe(0);
      expect(await threadsOf()).toEqual([]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('opens a citation on the document text with the cited passage marked and scrolled into view', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await page.setViewportSize({ width: 1200, height: 700 });
      await byId('nav-ask').click();
      await byId('ask-question').fill(WIFE_OF_KING.en);
      await byId('ask-strategy').selectOption('vector');
      await byId('ask-submit').click();
      await runEnds(page, 'vector');
      await opensAtPassage(page, byId('citation-link').first());
      await screenshot(page, 'ask-citation-source');
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it("opens a citation into LibreOffice's DOCX on the document text with the passage marked and in view", async () => {
    const docx = fileURLToPath(new URL('../fixtures/producers/club.docx', import.meta.url));
    await call(server.engine, 'docs:add', { kb: 'odyssey', paths: [docx] });
    expect((await runJobToEnd(server.engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
    const rows = await call<{ rows: { id: number; path: string }[] }>(server.engine, 'docs:list', { kb: 'odyssey' });
    const id = rows.rows.find((r) => r.path === docx)!.id;
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    const byId = (testId: string) => page.getByTestId(testId);
    try {
      await page.setViewportSize({ width: 1200, height: 700 });
      await byId('nav-ask').click();
      await byId('ask-question').fill('Who founded the Marlow Rowing Club, and when did it move to Henley?');
      await byId('ask-strategy').selectOption('vector');
      await byId('ask-submit').click();
      await runEnds(page, 'vector');
      await opensAtPassage(page, page.locator(`[data-testid="citation-link"][data-document-id="${id}"]`).first());
      await screenshot(page, 'ask-citation-docx');
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
