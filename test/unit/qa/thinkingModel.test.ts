import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  LlmUsage,
  RenderedPrompt,
} from '../../../src-main/engine/models/Llm.js';
import { generationBudget } from '../../../src-main/engine/models/LlamaCppLlm.js';
import { ask, resolveQaSettings, type AskOptions } from '../../../src-main/engine/qa/index.js';
import { modelChunks } from '../../support/modelChunks.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { indexOdyssey, prompts } from './support/odysseyKb.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from './support/qaScript.js';

let kb: KnowledgeBase;
let close: (() => void) | undefined;
beforeAll(async () => {
  ({ kb, close } = await indexOdyssey());
});
afterAll(() => close?.());

/**
 * A thinking model (as Qwen3 or gpt-oss run through node-llama-cpp): before each free-text answer
 * it reasons `reasoning` tokens (real tokenizer). Reasoning is bounded by `reasoningTokens` when
 * the caller gives it (then the model is made to answer), else it eats into `maxTokens`; the
 * answer (free text or the final answer's JSON) is cut at what is left, possibly to nothing.
 */
class ThinkingLlm implements Llm {
  readonly identity = 'thinking-test-model';
  readonly parallelism = 2;
  readonly contextTokens = 32_768;
  readonly reasons = true;
  readonly #inner = new ScriptedLlm(qaRules());
  readonly #reasoning: number;
  readonly #answers: boolean;

  constructor(reasoning: number, options: { answers?: boolean } = {}) {
    this.#reasoning = reasoning;
    this.#answers = options.answers ?? true;
  }

  countTokens(text: string): number {
    return countTokens(text);
  }

  /** What reasoning leaves of the call's budget: on its own budget when the caller gives one. */
  #budget(options: LlmCallOptions): { reasoned: number; left: number } {
    const maxTokens = options.maxTokens ?? 1024;
    if (options.reasoningTokens === undefined) {
      const reasoned = Math.min(this.#reasoning, maxTokens);
      return { reasoned, left: maxTokens - reasoned };
    }
    return { reasoned: Math.min(this.#reasoning, options.reasoningTokens), left: maxTokens };
  }

  /** The longest prefix of `text` within `tokens` (cut at word boundaries, as a budget stops a reply). */
  #cut(text: string, tokens: number): string {
    return text.split(/(?<=\s)/).reduce((acc, w) => (countTokens(acc + w) <= tokens ? acc + w : acc), '');
  }

  #usage(prompt: RenderedPrompt, reasoned: number, written: string): LlmUsage {
    return {
      promptTokens: countTokens(prompt.system + prompt.user),
      completionTokens: reasoned + countTokens(written),
      reasoningTokens: reasoned,
      durationMs: 0,
      cached: false,
    };
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const { reasoned, left } = this.#budget(options);
    const full = this.#answers
      ? (await this.#inner.generateText(prompt, { ...options, onTextChunk: undefined })).text
      : '';
    const text = countTokens(full) <= left ? full : this.#cut(full, left);
    for (const chunk of modelChunks(text)) options.onTextChunk?.(chunk);
    return { text, stopReason: text === full ? 'eos' : 'maxTokens', usage: this.#usage(prompt, reasoned, text) };
  }

  /** The final answer's reply too is written after the reasoning, within what it left; a model that does not answer writes empty fields. */
  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const { reasoned, left } = this.#budget(options);
    const { value } = await this.#inner.generateJson(prompt, schema, { ...options, onTextChunk: undefined });
    const silent = { answer: '', short: '' };
    const written = (!this.#answers && schema.safeParse(silent).success ? silent : value) as z.infer<S>;
    const raw = JSON.stringify(written);
    if (countTokens(raw) <= left) {
      for (const chunk of modelChunks(raw)) options.onTextChunk?.(chunk);
      return { value: written, usage: this.#usage(prompt, reasoned, raw) };
    }
    const cut = this.#cut(raw, left);
    for (const chunk of modelChunks(cut)) options.onTextChunk?.(chunk);
    throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: reply cut at maxTokens`, {
      details: { raw: cut, usage: this.#usage(prompt, reasoned, cut) },
    });
  }

  async dispose(): Promise<void> {}
}

const askWith = (
  llm: Llm,
  overrides: Record<string, number> = {},
  stream: Pick<AskOptions, 'onTextChunk' | 'onTextRestart'> = {},
) =>
  ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) }, WIFE_OF_KING.en, {
    strategy: 'dr',
    ...stream,
  });

describe('thinking models', () => {
  it('reason on their own budget, so a long reasoning does not eat the 512-token answer', async () => {
    const answer = await askWith(new ThinkingLlm(700));
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    const step = answer.trace.find((s) => s.step === 'answer')!;
    expect(step.completionTokens).toBeGreaterThan(700);
  });

  it('never give an empty answer without saying why', async () => {
    let streamed = '';
    const answer = await askWith(
      new ThinkingLlm(300, { answers: false }),
      { 'shared.reasoningMaxTokens': 300 },
      { onTextChunk: (t) => (streamed += t), onTextRestart: () => (streamed = '') },
    );
    expect(answer.text).toMatch(
      /^\(the model gave no answer: it reasoned for 300 tokens, then it stopped without writing any text\.\)$/,
    );
    expect(streamed).toBe(answer.text); // the asker watching the stream reads the reason too
    expect((answer.trace.find((s) => s.step === 'answer')!.detail as { empty: string }).empty).toMatch(
      /reasoned for 300 tokens/,
    );
  });

  it('get the reasoning budget on top of the answer budget, within the room left in the context', () => {
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 8000, reasons: true })).toEqual({
      maxTokens: 1536,
      thoughtTokens: 1024,
    });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 1000, reasons: true })).toEqual({
      maxTokens: 1000,
      thoughtTokens: 488,
    });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 0, room: 8000, reasons: true })).toEqual({
      maxTokens: 512,
      thoughtTokens: 0,
    });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 8000, reasons: false })).toEqual({
      maxTokens: 512,
    });
  });
});
