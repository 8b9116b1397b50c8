import type { z } from 'zod';
import { PolyhopError } from '../../src-main/engine/base/errors.js';
import { throwIfAborted } from '../../src-main/engine/base/abort.js';
import { generationBudget } from '../../src-main/engine/models/LlamaCppLlm.js';
import {
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmStopReason,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from '../../src-main/engine/models/Llm.js';
import { modelChunks } from './modelChunks.js';
import { GrammarValues, type SchemaEnforcement } from './grammarValues.js';
import { qwen3CountTokens, qwen3Decode, qwen3Encode, qwen3PromptTokens } from './qwen3Tokens.js';

/**
 * Test double of the LLM for exact pipeline-logic assertions. It answers by rule, matching on
 * the prompt name and the variables the prompt was filled with (never on prose), so prompt
 * wording can change without touching tests. Lives under test/ only: the app never ships it.
 *
 * It is limited as Qwen3 under `LlamaCppLlm` is: tokens are Qwen3's (its tokenizer and chat
 * template, {@link qwen3PromptTokens}); a prompt that leaves no room in its context is refused
 * with the BAD_INPUT error LlamaCppLlm throws; a reply longer than the call's budget is cut at
 * that token, as generation stops there (text: `stopReason: 'maxTokens'`; JSON: the cut text fails
 * to parse, LLM_OUTPUT_INVALID with the cut `raw` and the tokens spent), so callers split and
 * retry as they must with a real model. A rule's reply is what the model would write without a
 * limit (`maxTokens: Infinity` returns it whole). Reasoning follows a {@link ReasoningPolicy} (none by default): see {@link ScriptedLlm.generateJson}.
 */
export interface ScriptRule {
  /** Prompt name, e.g. `mder/map`. */
  prompt: string;
  /** Optional extra condition on the prompt's variables. */
  when?: (variables: Readonly<Record<string, string>>) => boolean;
  /**
   * The reply: a string for text calls, a JSON value (validated by the call's schema) for JSON calls.
   * `sampling` is the call's (empty for greedy decoding), for a reply that depends on it as a model's does.
   */
  reply: (
    variables: Readonly<Record<string, string>>,
    prompt: RenderedPrompt,
    sampling?: Pick<LlmCallOptions, 'temperature' | 'seed'>,
  ) => unknown;
}

/** Which steps a thinking model reasons in, and how much of their budget it spends. */
export interface ReasoningPolicy {
  /** Prompt names that reason (e.g. `mder/map`), or 'all'. */
  steps: 'all' | ReadonlySet<string>;
  /** Reasoning tokens a step may spend when the call does not say. Default: the Llm default (1024). */
  budget?: number;
  /** Share of the budget a reasoning step spends (0–1). Default 1: the whole budget, an upper bound. */
  used?: number;
}

export interface ScriptedLlmOptions {
  /** Tokens of one sequence (prompt + reasoning + answer). Default 4096: `MIN_AUTO_CONTEXT`, the least LlamaCppLlm settles on. */
  contextTokens?: number;
  /** A thinking model (Qwen3 `<think>`): which steps reason. Default: the model does not reason. */
  reasoning?: ReasoningPolicy;
  /** Parallel sequences it claims to have. Default 4. */
  parallelism?: number;
  /** Simulated latency per call in ms. Default 0. */
  latencyMs?: number;
  /** Reply used when no rule matches; default throws so tests notice unscripted calls. */
  fallback?: ScriptRule['reply'];
  identity?: string;
  /**
   * `grammar`: a rule's JSON reply is a local model's under node-llama-cpp, so one that writes a
   * value a field's `enum` or `const` does not allow is a script error (thrown as such), not a
   * reply; `ignored`: an endpoint that does not enforce the schema, whose reply only the zod check
   * judges. See {@link SchemaEnforcement}. Default: `ignored`.
   */
  schema?: SchemaEnforcement;
  /** Keep every call (prompt and output) in `calls`. Default true; benchmarks with hundreds of thousands of calls turn it off so the log does not count as the engine's memory. */
  recordCalls?: boolean;
}

/** One call as Qwen3 would have cost it. */
export interface ScriptedCall {
  prompt: RenderedPrompt;
  kind: 'text' | 'json';
  /** What the model wrote (cut where generation stopped); '' for a refused prompt. */
  output: string;
  promptTokens: number;
  /** Answer and reasoning tokens generated (what a cut call also costs). */
  completionTokens: number;
  reasoningTokens: number;
  /** 'cut': the reply did not fit its budget; 'refused': the prompt did not fit the context. */
  outcome: 'ok' | 'cut' | 'refused';
  /** The double's own time on the call (tokenizing): the model's time, which benchmarks take out. */
  durationMs: number;
}

/** `<think>\n` … `\n</think>\n\n` around a thought: the template's own markers. */
const THINK_MARKERS = '<think>\n\n</think>\n\n';

export class ScriptedLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly contextTokens: number;
  readonly reasons: boolean;
  /** Every call, in order (empty when `recordCalls` is false; {@link callCount} counts regardless). */
  readonly calls: ScriptedCall[] = [];
  #callCount = 0;
  readonly #rules: ScriptRule[];
  readonly #options: ScriptedLlmOptions;

  constructor(rules: ScriptRule[], options: ScriptedLlmOptions = {}) {
    this.#rules = rules;
    this.#options = options;
    this.identity = options.identity ?? 'scripted-llm';
    this.parallelism = options.parallelism ?? 4;
    this.contextTokens = options.contextTokens ?? 4096;
    this.reasons = options.reasoning !== undefined;
  }

  get callCount(): number {
    return this.#callCount;
  }

  countTokens(text: string): number {
    return qwen3CountTokens(text);
  }

  /** Whether `promptName` reasons under the policy. */
  reasonsAt(promptName: string): boolean {
    const policy = this.#options.reasoning;
    return policy !== undefined && (policy.steps === 'all' || policy.steps.has(promptName));
  }

  /**
   * A text call reasons and answers in one generation, as node-llama-cpp runs it: `maxTokens`
   * covers thought and answer (`generationBudget`), and the thought segment is closed when its
   * budget is spent.
   */
  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const { text, usage, stopReason } = await this.#generate(prompt, 'text', options);
    return { text, usage, stopReason };
  }

  /**
   * A JSON call runs under a grammar, where node-llama-cpp detects no thought segment, so a step
   * that reasons runs as LlamaCppLlm runs it: the thought first without the grammar (to its
   * budget), then the answer under the grammar with `maxTokens` of its own, within what the
   * context has left. A reply cut there fails to parse, as a real cut reply does.
   */
  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const { text: raw, usage, stopReason } = await this.#generate(prompt, 'json', options, schema);
    const invalid = (reason: string): PolyhopError =>
      new PolyhopError('LLM_OUTPUT_INVALID', `${prompt.name}: model output failed its schema: ${reason}`, {
        // As LlamaCppLlm, an unusable reply still reports the tokens it cost.
        details: { prompt: prompt.name, promptVersion: prompt.version, raw, reason, usage },
      });
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw invalid(stopReason === 'maxTokens' ? 'not JSON (stopped at maxTokens)' : 'not JSON');
    }
    const result = schema.safeParse(parsed);
    if (!result.success) throw invalid(result.error.message);
    return { value: result.data as z.infer<S>, usage };
  }

  async dispose(): Promise<void> {}

  /** Calls made with one prompt name (for assertions). */
  callsOf(promptName: string): ScriptedCall[] {
    return this.calls.filter((c) => c.prompt.name === promptName);
  }

  async #generate(
    prompt: RenderedPrompt,
    kind: ScriptedCall['kind'],
    options: LlmCallOptions,
    schema?: z.ZodType,
  ): Promise<{ text: string; usage: LlmUsage; stopReason: LlmStopReason }> {
    throwIfAborted(options.signal);
    if (this.#options.latencyMs) await new Promise((r) => setTimeout(r, this.#options.latencyMs));
    throwIfAborted(options.signal);
    const started = performance.now();
    const asked = options.reasoningTokens ?? this.#options.reasoning?.budget ?? LLM_CALL_DEFAULTS.reasoningTokens;
    const thinking = this.reasonsAt(prompt.name) && asked > 0;
    const promptTokens = qwen3PromptTokens(prompt, thinking);
    // `maxTokens: Infinity`: no limit at all, for a wrapper that applies the limits itself (UncooperativeLlm).
    const unlimited = options.maxTokens === Infinity;
    const room = unlimited ? Infinity : this.contextTokens - promptTokens;
    const record = (
      output: string,
      completionTokens: number,
      reasoningTokens: number,
      outcome: ScriptedCall['outcome'],
    ): LlmUsage => {
      this.#callCount++;
      const durationMs = performance.now() - started;
      if (this.#options.recordCalls !== false)
        this.calls.push({ prompt, kind, output, promptTokens, completionTokens, reasoningTokens, outcome, durationMs });
      return { promptTokens, completionTokens, ...(thinking ? { reasoningTokens } : {}), durationMs, cached: false };
    };
    if (room <= 0) {
      record('', 0, 0, 'refused');
      // LlamaCppLlm's own refusal, word for word.
      throw new PolyhopError(
        'BAD_INPUT',
        `${prompt.name}: prompt of ${promptTokens} tokens does not fit the ${this.contextTokens}-token context`,
        { details: { prompt: prompt.name, promptTokens, contextSize: this.contextTokens } },
      );
    }
    const maxTokens = options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens;
    const budget = unlimited
      ? { maxTokens: Infinity, thoughtTokens: asked }
      : generationBudget({ answerTokens: maxTokens, reasoningTokens: asked, room, reasons: thinking });
    const thought = thinking
      ? Math.round((budget.thoughtTokens ?? 0) * (this.#options.reasoning?.used ?? 1)) + qwen3CountTokens(THINK_MARKERS)
      : 0;
    // JSON: the answer phase's own maxTokens after the thought (LlamaCppLlm's two phases); text: one budget for both.
    const answerRoom =
      kind === 'json' && thinking
        ? Math.max(1, Math.min(maxTokens, room - thought))
        : Math.max(0, budget.maxTokens - thought);
    const reply = this.#reply(prompt, { temperature: options.temperature, seed: options.seed });
    const unwritable = schema && this.#options.schema === 'grammar' ? new GrammarValues(schema).violation(reply) : null;
    if (unwritable)
      throw new Error(
        `ScriptedLlm: the rule for ${prompt.name} writes ${JSON.stringify(unwritable.written)} at ${JSON.stringify(unwritable.path)}, which the grammar does not allow (${JSON.stringify(unwritable.allowed)})`,
      );
    const full = typeof reply === 'string' ? reply : JSON.stringify(reply);
    const tokens = qwen3Encode(full);
    // The answer ends with <|im_end|>, one more token, unless generation stopped first.
    const cut = !unlimited && tokens.length + 1 > answerRoom;
    const text = cut && tokens.length > answerRoom ? qwen3Decode(tokens.slice(0, answerRoom)) : full;
    // Streamed as a model writes it (a JSON call's raw JSON under the grammar), a few tokens at a time.
    if (options.onTextChunk) for (const chunk of modelChunks(text)) options.onTextChunk(chunk);
    const written = cut ? answerRoom : tokens.length + 1;
    const usage = record(text, thought + written, thought, cut ? 'cut' : 'ok');
    return { text, usage, stopReason: cut ? 'maxTokens' : 'eos' };
  }

  #reply(prompt: RenderedPrompt, sampling: Pick<LlmCallOptions, 'temperature' | 'seed'>): unknown {
    const rule = this.#rules.find((r) => r.prompt === prompt.name && (!r.when || r.when(prompt.variables)));
    if (rule) return rule.reply(prompt.variables, prompt, sampling);
    if (this.#options.fallback) return this.#options.fallback(prompt.variables, prompt, sampling);
    throw new Error(
      `ScriptedLlm: no rule for prompt ${prompt.name} with variables ${JSON.stringify(prompt.variables).slice(0, 500)}`,
    );
  }
}
