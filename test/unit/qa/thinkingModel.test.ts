import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../../src-main/engine/kb/index.js';
import type { Llm, LlmCallOptions, LlmJsonResult, LlmTextResult, RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { generationBudget } from '../../../src-main/engine/models/LlamaCppLlm.js';
import { ask, resolveQaSettings } from '../../../src-main/engine/qa/index.js';
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
 * answer is cut at what is left, possibly to nothing.
 */
class ThinkingLlm implements Llm {
  readonly identity = 'thinking-test-model';
  readonly parallelism = 2;
  readonly contextTokens = 32_768;
  readonly reasons = true;
  readonly #inner = new ScriptedLlm(qaRules(), { countTokens });
  readonly #reasoning: number;
  readonly #answers: boolean;

  constructor(reasoning: number, options: { answers?: boolean } = {}) {
    this.#reasoning = reasoning;
    this.#answers = options.answers ?? true;
  }

  countTokens(text: string): number {
    return countTokens(text);
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const maxTokens = options.maxTokens ?? 1024;
    const reasoned = options.reasoningTokens === undefined ? Math.min(this.#reasoning, maxTokens) : Math.min(this.#reasoning, options.reasoningTokens);
    const left = options.reasoningTokens === undefined ? maxTokens - reasoned : maxTokens;
    const full = this.#answers ? (await this.#inner.generateText(prompt, { ...options, onTextChunk: undefined })).text : '';
    const tokens = countTokens(full);
    const text = tokens <= left ? full : full.split(/(?<=\s)/).reduce((acc, w) => (countTokens(acc + w) <= left ? acc + w : acc), '');
    options.onTextChunk?.(text);
    const stopReason = tokens > left ? 'maxTokens' : 'eos';
    return { text, stopReason, usage: { promptTokens: countTokens(prompt.system + prompt.user), completionTokens: reasoned + countTokens(text), reasoningTokens: reasoned, durationMs: 0, cached: false } };
  }

  generateJson<S extends z.ZodType>(prompt: RenderedPrompt, schema: S, options?: LlmCallOptions): Promise<LlmJsonResult<z.infer<S>>> {
    return this.#inner.generateJson(prompt, schema, options);
  }

  async dispose(): Promise<void> {}
}

const askWith = (llm: Llm, overrides: Record<string, number> = {}) => ask({ kb, llm, embedder: new QaEmbedder(), prompts, settings: resolveQaSettings(overrides) }, WIFE_OF_KING.en, { strategy: 'dr' });

describe('thinking models', () => {
  it('reason on their own budget, so a long reasoning does not eat the 512-token answer', async () => {
    const answer = await askWith(new ThinkingLlm(700));
    expect(answer.text).toMatch(/Penelope \[\d+\]/);
    const step = answer.trace.find((s) => s.step === 'answer')!;
    expect(step.completionTokens).toBeGreaterThan(700);
  });

  it('never give an empty answer without saying why', async () => {
    const answer = await askWith(new ThinkingLlm(300, { answers: false }), { 'shared.reasoningMaxTokens': 300 });
    expect(answer.text).toMatch(/^\(the model gave no answer: it reasoned for 300 tokens, then it stopped without writing any text\.\)$/);
    expect((answer.trace.find((s) => s.step === 'answer')!.detail as { empty: string }).empty).toMatch(/reasoned for 300 tokens/);
  });

  it('get the reasoning budget on top of the answer budget, within the room left in the context', () => {
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 8000, reasons: true })).toEqual({ maxTokens: 1536, thoughtTokens: 1024 });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 1000, reasons: true })).toEqual({ maxTokens: 1000, thoughtTokens: 488 });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 0, room: 8000, reasons: true })).toEqual({ maxTokens: 512, thoughtTokens: 0 });
    expect(generationBudget({ answerTokens: 512, reasoningTokens: 1024, room: 8000, reasons: false })).toEqual({ maxTokens: 512 });
  });
});
