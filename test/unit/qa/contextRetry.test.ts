import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import type { Llm, LlmCallOptions, RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { UncooperativeLlm } from '../../support/UncooperativeLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

/**
 * A server that reports no context size (LM Studio, Ollama) leaves QA to guess the evidence
 * budget; when the guess is too large the server refuses the prompt (LM Studio's 400, which
 * OpenAiLlm turns into BAD_INPUT, as the local model says it) or cuts it (Ollama, caught from
 * prompt_tokens, the same BAD_INPUT). QA then asks once more with half the evidence.
 */
let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

/** The model with `contextTokens` of real context, behind a server that does not say how large it is. */
class SilentContextLlm implements Llm {
  readonly identity = 'silent-context';
  readonly parallelism = 1;
  readonly contextTokens = undefined;
  refusals = 0;
  readonly #inner: UncooperativeLlm;
  constructor(contextTokens: number) {
    this.#inner = new UncooperativeLlm(new ScriptedLlm(qaRules()), { seed: 1, contextTokens, degrade: () => false });
  }
  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }
  generateText(prompt: RenderedPrompt, options?: LlmCallOptions) {
    return this.#counted(this.#inner.generateText(prompt, options));
  }
  generateJson<S extends z.ZodType>(prompt: RenderedPrompt, schema: S, options?: LlmCallOptions) {
    return this.#counted(this.#inner.generateJson(prompt, schema, options));
  }
  async #counted<T>(call: Promise<T>): Promise<T> {
    return call.catch((error: unknown) => {
      this.refusals++;
      throw error;
    });
  }
  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

/**
 * Per strategy, an evidence budget the small Odysseus KB fills, set (`shared.evidenceMaxTokens`)
 * as a budget guessed for a server that reports no context is, and a real context its answer
 * prompt with that much evidence does not fit, with half of it does (DR's resolve prompt, which
 * carries no evidence, needs the larger context).
 */
const SIZES = { dr: { evidence: 800, context: 800 }, vector: { evidence: 400, context: 500 } } as const;

const qa = (llm: Llm, strategy: 'dr' | 'vector', evidence: number = SIZES[strategy].evidence) =>
  ask(
    {
      kb,
      llm,
      embedder: new QaEmbedder(),
      prompts,
      settings: resolveQaSettings({ 'shared.evidenceMaxTokens': evidence }),
    },
    WIFE_OF_KING.en,
    { strategy },
  );

describe('a context refusal makes QA ask again with half the evidence', () => {
  it.each(['dr', 'vector'] as const)(
    '%s: refused once, answered with half the budget, the trace says so',
    async (strategy) => {
      const { evidence, context } = SIZES[strategy];
      const llm = new SilentContextLlm(context);
      const answer = await qa(llm, strategy);
      expect(llm.refusals).toBeGreaterThan(0);
      const retry = answer.trace.find((s) => s.step === 'context-retry');
      expect(retry?.detail).toMatchObject({
        evidenceTokens: { before: evidence, after: evidence / 2 },
        refused: expect.stringMatching(/does not fit/),
      });
      expect(answer.text).toMatch(/Penelope/);
    },
  );

  it('a refusal with half the evidence too stands (one retry only)', async () => {
    const llm = new SilentContextLlm(300);
    await expect(qa(llm, 'vector')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});
