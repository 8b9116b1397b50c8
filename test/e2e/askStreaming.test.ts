import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { z } from 'zod';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import type { InjectedModels } from '../../src-main/engine/api/ModelRuntime.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { startE2eServer, type E2eServer } from '../support/e2eServer.js';
import { modelChunks } from '../support/modelChunks.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { call } from '../support/tempEngine.js';

/** A gate the test opens: the model's writing pauses there, so the page can be read mid-answer without timing. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const DRAFT = 'A first draft that the token budget cu';
const ANSWER = 'Penelope was the wife of Odysseus, king of Ithaca.';

/**
 * A model writing the final answer slowly, as a local model on a slow GPU does: its JSON reply
 * streams a few tokens at a time. The first reply is cut by the budget (it fails its schema) and
 * retried, as LlamaCppLlm retries; the retry pauses halfway through the answer.
 */
class SlowModel implements Llm {
  readonly identity = 'slow-e2e-model';
  readonly parallelism = 1;
  readonly contextTokens = 8192;
  readonly gates = { draftShown: gate(), halfShown: gate() };

  countTokens(text: string): number {
    return countTokens(text);
  }

  generateText(prompt: RenderedPrompt): Promise<LlmTextResult> {
    throw new Error(`SlowModel: no text call expected (${prompt.name})`);
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    if (prompt.name !== 'qa/llm-only') throw new Error(`SlowModel: unexpected prompt ${prompt.name}`);
    const write = (text: string): void => modelChunks(text).forEach((chunk) => options.onTextChunk?.(chunk));
    const draft = `{"answer":"${DRAFT}`;
    write(draft);
    await this.gates.draftShown.wait;
    options.onTextRestart?.(); // the cut draft failed its schema: the retry starts over
    const reply = JSON.stringify({ answer: ANSWER, short: 'Penelope' });
    const half = reply.indexOf(' king');
    write(reply.slice(0, half));
    await this.gates.halfShown.wait;
    write(reply.slice(half));
    const usage = {
      promptTokens: countTokens(prompt.system + prompt.user),
      completionTokens: countTokens(draft) + countTokens(reply),
      durationMs: 0,
      cached: false,
    };
    const parsed = schema.safeParse(JSON.parse(reply));
    if (!parsed.success)
      throw new PolyhopError('LLM_OUTPUT_INVALID', 'SlowModel: reply fails its schema', {
        details: { raw: reply, usage },
      });
    return { value: parsed.data as z.infer<S>, usage };
  }

  async dispose(): Promise<void> {}
}

const model = new SlowModel();
const models: InjectedModels = { llm: model, embedder: new NgramEmbedder(64) };
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer({ models });
  await call(server.engine, 'kb:create', { name: 'notes' });
  browser = await launchChromium();
});

afterAll(async () => {
  // A failed step leaves the model paused: let it finish, so the job and the server can end.
  model.gates.draftShown.open();
  model.gates.halfShown.open();
  await browser?.close();
  await server?.close();
});

describeInBrowser('the Ask screen while the answer is written', () => {
  it('shows the answer growing, drops a retried draft, and ends on the finished answer', async () => {
    const { context, page, consoleErrors } = await openApp(browser, server.authUrl);
    try {
      const streamText = (): Promise<string> =>
        page
          .getByTestId('answer-stream')
          .textContent()
          .then((t) => t ?? '');
      // The limits only catch a hang: each step waits for the model's gate, not for time.
      const waitForStream = (start: string): Promise<unknown> =>
        page.waitForFunction(
          (s) => (document.querySelector('[data-testid="answer-stream"]')?.textContent ?? '').startsWith(s),
          start,
          { timeout: 30_000 },
        );
      await page.getByTestId('nav-ask').click();
      await page.getByTestId('ask-question').fill('Who was the wife of the king of Ithaca?');
      await page.getByTestId('ask-strategy').selectOption('llm-only');
      await page.getByTestId('ask-submit').click();

      await waitForStream(DRAFT);
      expect(await streamText()).toBe(DRAFT);
      model.gates.draftShown.open();

      await waitForStream('Penelope was the wife');
      expect(await streamText()).toBe('Penelope was the wife of Odysseus,'); // the draft is gone, not doubled
      model.gates.halfShown.open();

      await page.locator('[data-testid="ask-run-llm-only"][data-status="done"]').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('answer-stream').count()).toBe(0);
      expect((await page.getByTestId('answer-text').textContent())?.trim()).toBe(ANSWER);
      expect(await page.getByTestId('short-answer').textContent()).toContain('Penelope');
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
