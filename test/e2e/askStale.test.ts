import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Answer, Thread, ThreadSummary } from '../../src-main/engine/api/contract.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import type { E2eServer } from '../support/e2eServer.js';
import { startOdysseyE2eServer } from '../support/odysseyE2eServer.js';
import { call } from '../support/tempEngine.js';
import { WIFE_OF_KING } from '../unit/qa/support/qaScript.js';

/** A turn whose cited document was removed shows "stale — ask again"; the button asks it again in the thread. */
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  ({ server } = await startOdysseyE2eServer());
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describeInBrowser('a stale answer on the Ask screen', () => {
  it('marks the turn stale once its cited document is removed, and asks it again in the thread', async () => {
    const { context, page } = await openApp(browser, server.authUrl);
    const byId = (id: string) => page.getByTestId(id);
    try {
      await byId('nav-ask').click();
      await byId('ask-question').fill(WIFE_OF_KING.en);
      await byId('ask-strategy').selectOption('vector');
      await byId('ask-submit').click();
      await page.waitForSelector('[data-testid="ask-run-vector"][data-status="done"]', { timeout: 60_000 });
      const [summary] = await call<ThreadSummary[]>(server.engine, 'threads:list', { kb: 'odyssey' });
      const thread = await call<Thread>(server.engine, 'threads:get', { kb: 'odyssey', thread: summary!.id });
      const answer = thread.turns[0]!.answer as Answer;
      const cited = answer.evidence.flatMap((e) => e.citations)[0]!;
      expect(await byId('answer-stale').count()).toBe(0);

      await call(server.engine, 'docs:remove', { kb: 'odyssey', id: cited.documentId });
      await page.reload();
      await byId('nav-ask').click();
      const stale = byId('answer-stale');
      await stale.waitFor();
      expect(await stale.getAttribute('data-reason')).toBe('removed');
      expect(await stale.textContent()).toContain(cited.documentTitle);
      await screenshot(page, 'ask-stale-answer');

      await byId('answer-ask-again').click();
      await page.waitForSelector('[data-testid="ask-run-vector"][data-status="done"]', { timeout: 60_000 });
      const after = await call<Thread>(server.engine, 'threads:get', { kb: 'odyssey', thread: summary!.id });
      expect(after.turns.map((t) => [t.standaloneQuestion, t.answer?.strategy, t.stale?.reason ?? null])).toEqual([
        [WIFE_OF_KING.en, 'vector', 'removed'],
        [WIFE_OF_KING.en, 'vector', null],
      ]);
    } finally {
      await context.close();
    }
  });
});
