import { basename } from 'node:path';
import type { z } from 'zod';
import {
  LlamaChat,
  type ChatHistoryItem,
  type ChatModelResponse,
  type ChatWrapper,
  type GbnfJsonSchema,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import { asCancelled, throwIfAborted } from '../base/abort.js';
import { PolyhopError } from '../base/errors.js';
import { RecentMap } from '../base/RecentMap.js';
import type { ModelStatus } from './views.js';
import {
  LLM_CALL_DEFAULTS,
  type Llm,
  type LlmCallOptions,
  type LlmJsonResult,
  type LlmStopReason,
  type LlmTextResult,
  type LlmUsage,
  type RenderedPrompt,
} from './Llm.js';
import { withSpellableEnums, zodJsonSchema, type JsonSchema } from './grammarSchema.js';
import { firstSampling, generateStructured, type Sampling } from './structuredReply.js';
import { fileFingerprint } from './embedders/fileFingerprint.js';
import { getLlamaRuntime, type LlamaGpuChoice, type LlamaRuntime } from './llamaRuntime.js';
import { inspectGguf } from './inspectGguf.js';
import { SequencePool } from './SequencePool.js';
import { DEFAULT_SEQUENCES, planContexts } from './contextPlan.js';
import { chatReasoning, resolveModelChatWrapper, type ChatReasoning } from './chatReasoning.js';

export interface LlamaCppLlmOptions {
  /** The GGUF file. Checked with {@link inspectGguf} first: an unusable file is a BAD_INPUT error, never a native crash. */
  path: string;
  /**
   * Layers offloaded to the GPU. `'auto'` (default) fits as many as free VRAM allows next to the
   * context; a number asks for that many. If loading fails either way, Polyhop retries with half
   * the layers, then on the CPU, and says so in {@link LlamaCppLlm.status}'s explanation.
   */
  gpuLayers?: 'auto' | number;
  /**
   * Tokens each sequence can hold (prompt + completion). Default: as many as the model was trained
   * for, cut to what free VRAM (or RAM, on the CPU) holds for all sequences, and never below
   * {@link MIN_AUTO_CONTEXT} (node-llama-cpp's `contextSize: {min, max}`). A number is used as is.
   */
  contextSize?: number;
  /**
   * CPU threads for evaluation. Default: the CPU's math cores when any layer runs on the CPU,
   * else node-llama-cpp's default. More threads than free cores makes llama.cpp's spinning
   * workers fight (measured ~500× slower on a busy 2-core machine), so tests pass 1.
   */
  threads?: number;
  /** Tokens per decode batch. Default: node-llama-cpp's (512, or the context size if smaller). */
  batchSize?: number;
  /** Parallel sequences, i.e. calls that generate at the same time in one batch. Default 4, or fewer for {@link contextNeed}. */
  sequences?: number;
  /**
   * Context tokens one sequence needs for the answering prompts' evidence, given whether the
   * model reasons (qa/contextNeed.ts). With an automatic context, 4, then 2, then 1 sequence of at
   * least that many tokens are tried before a smaller context ({@link planContexts}). Default: none.
   */
  contextNeed?: (reasons: boolean) => number;
  /** Backend to load. Default 'auto' (CUDA, Vulkan, Metal, else CPU). */
  gpu?: LlamaGpuChoice;
  /** Aborts loading (CancelledError). */
  signal?: AbortSignal;
  /** Load progress in (0, 1]. */
  onLoadProgress?: (fraction: number) => void;
  /**
   * The chat wrapper that renders prompts. Default: the one node-llama-cpp resolves from the
   * model's own Jinja template (`resolveModelChatWrapper`); whether the model reasons is read from
   * that template either way ({@link chatReasoning}).
   */
  chatWrapper?: ChatWrapper;
}

export { MIN_AUTO_CONTEXT, autoContextSize } from './contextPlan.js';
/**
 * Context per sequence the automatic layer offload leaves VRAM for; the automatic context size then
 * takes what is left, up to the trained context. More would push layers off a small GPU.
 */
const LAYER_FIT_CONTEXT = 8192;

interface Slot {
  sequence: LlamaContextSequence;
  /** Renders prompts with reasoning as the template has it. */
  chat: LlamaChat;
  /** Renders prompts with the template's reasoning switched off (absent when it cannot be). */
  quiet: LlamaChat | undefined;
}

/**
 * Grammars kept for reuse: the fixed schemas of every step fit with room to spare, while the
 * batched steps' schemas (their content keys are enums of the batch's names) are one per call.
 */
const MAX_GRAMMARS = 64;

/** A reasoning phase that never closes its segment stops here, leaving room for the answer. */
const THOUGHT_PHASE_SLACK_TOKENS = 8;

/**
 * The generation model: one GGUF loaded once through node-llama-cpp, one context with N
 * sequences, each concurrent call borrowing a sequence. Text calls stream; JSON calls generate
 * under a grammar built from the zod schema, streaming the raw JSON, then validate with zod. The
 * model's own chat template frames system and user messages, and reasoning segments (Qwen3
 * `<think>`, gpt-oss analysis channel) are split off by node-llama-cpp's chat wrapper, never
 * returned or streamed as text.
 *
 * A call reasons when the model's template has a reasoning segment and the call gives it tokens
 * (`reasoningTokens > 0`); otherwise the template's own switch turns reasoning off. node-llama-cpp
 * skips segment detection under a grammar (it only injects the response prefix), so a JSON call
 * that reasons runs in two phases on one sequence: the thought without a grammar, stopped when
 * the segment closes, then the same response continued under the grammar.
 */
export class LlamaCppLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly contextTokens: number;
  readonly reasons: boolean;
  /** The chat wrapper and what the template says about reasoning. */
  readonly chatReasoning: ChatReasoning;
  readonly #path: string;
  readonly #model: LlamaModel;
  readonly #context: LlamaContext;
  readonly #pool: SequencePool<Slot>;
  readonly #slots: Slot[];
  readonly #status: ModelStatus;
  readonly #grammars = new RecentMap<string, Promise<LlamaGrammar>>(MAX_GRAMMARS);
  readonly #runtime: LlamaRuntime;
  #disposed = false;

  private constructor(init: {
    path: string;
    identity: string;
    runtime: LlamaRuntime;
    model: LlamaModel;
    context: LlamaContext;
    status: ModelStatus;
    wrapper: ChatWrapper;
    reasoning: ChatReasoning;
  }) {
    this.#path = init.path;
    this.identity = init.identity;
    this.#runtime = init.runtime;
    this.#model = init.model;
    this.#context = init.context;
    this.#status = init.status;
    const { off } = init.reasoning;
    this.#slots = Array.from({ length: init.context.totalSequences }, () => {
      const sequence = init.context.getSequence();
      return {
        sequence,
        chat: new LlamaChat({ contextSequence: sequence, chatWrapper: init.wrapper, autoDisposeSequence: false }),
        quiet: off
          ? new LlamaChat({ contextSequence: sequence, chatWrapper: off, autoDisposeSequence: false })
          : undefined,
      };
    });
    this.parallelism = this.#slots.length;
    this.contextTokens = init.context.contextSize;
    this.chatReasoning = init.reasoning;
    this.reasons = init.reasoning.reasons;
    this.#pool = new SequencePool(this.#slots);
  }

  static async create(options: LlamaCppLlmOptions): Promise<LlamaCppLlm> {
    const { path, signal } = options;
    throwIfAborted(signal);
    const info = await inspectGguf(path);
    const runtime = await getLlamaRuntime(options.gpu ?? 'auto');
    const { llama } = runtime;
    const identity = `llama.cpp:${basename(path)}:${(await fileFingerprint(path)).slice(0, 16)}`;
    const blockCount = info.metadata[`${info.architecture}.block_count`];
    const totalLayers = typeof blockCount === 'number' ? blockCount + 1 : 1;
    const layerSequences = options.sequences ?? DEFAULT_SEQUENCES;
    const trained = info.contextLength;
    const fitContext = options.contextSize ?? Math.min(trained ?? LAYER_FIT_CONTEXT, LAYER_FIT_CONTEXT);
    const attempts = planGpuLayers(
      options.gpuLayers ?? 'auto',
      totalLayers,
      llama.supportsGpuOffloading,
      fitContext * layerSequences,
    );
    const failures: string[] = [];

    for (const attempt of attempts) {
      throwIfAborted(signal);
      let model: LlamaModel | undefined;
      try {
        model = await llama.loadModel({
          modelPath: path,
          gpuLayers: attempt.gpuLayers,
          ...(signal ? { loadSignal: signal } : {}),
          ...(options.onLoadProgress ? { onLoadProgress: options.onLoadProgress } : {}),
        });
        const modelLayers = model.fileInsights.totalLayers;
        const threads = options.threads ?? (model.gpuLayers < modelLayers ? llama.cpuMathCores : undefined);
        const wrapper = options.chatWrapper ?? resolveModelChatWrapper(model);
        const reasoning = chatReasoning(wrapper, model);
        const plans = planContexts({
          ...(options.contextSize !== undefined ? { contextSize: options.contextSize } : {}),
          ...(options.sequences !== undefined ? { sequences: options.sequences } : {}),
          ...(trained !== undefined ? { trained } : {}),
          ...(options.contextNeed ? { needTokens: options.contextNeed(reasoning.reasons) } : {}),
        });
        // Fewer, larger sequences until one plan fits memory (node-llama-cpp refuses a `min` that does not).
        let context: LlamaContext | undefined;
        let plan = plans[0]!;
        for (const [i, next] of plans.entries()) {
          plan = next;
          try {
            context = await model.createContext({
              contextSize: plan.contextSize,
              sequences: plan.sequences,
              ...(threads !== undefined ? { threads } : {}),
              ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
              ...(signal ? { createSignal: signal } : {}),
            });
            break;
          } catch (error) {
            if (signal?.aborted || i === plans.length - 1) throw error;
            failures.push(
              `${plan.sequences} × ${JSON.stringify(plan.contextSize)}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
        if (!context) throw new PolyhopError('MODEL_ERROR', `${basename(path)}: no context could be created`);
        const sequences = plan.sequences;
        const where =
          model.gpuLayers === 0
            ? `all ${modelLayers} layers on the CPU`
            : `${model.gpuLayers}/${modelLayers} layers on the GPU (${attempt.why})`;
        const explanation = [
          runtime.description,
          where,
          `context ${context.contextSize} tokens × ${sequences} sequences ` +
            `(${contextWhy(options.contextSize, trained, context.contextSize)}` +
            `${plan.why === 'auto' || plan.why === 'as set' ? '' : `; ${plan.why}`})`,
          `${context.idealThreads} threads${options.threads === undefined ? ' (default)' : ''}`,
          ...(failures.length > 0 ? [`after failed attempts: ${failures.join('; ')}`] : []),
        ].join('; ');
        const status: ModelStatus = {
          role: 'generation',
          path,
          identity,
          backend: runtime.backend,
          gpuLayers: model.gpuLayers,
          totalLayers: modelLayers,
          contextSize: context.contextSize,
          sequences,
          threads: context.idealThreads,
          explanation: `${explanation}; ${reasoning.summary}`,
          chat: { wrapper: reasoning.wrapperName, reasons: reasoning.reasons, switchable: reasoning.switchable },
        };
        return new LlamaCppLlm({ path, identity, runtime, model, context, status, wrapper, reasoning });
      } catch (error) {
        await model?.dispose();
        if (signal?.aborted) throw asCancelled(signal.reason);
        failures.push(`${attempt.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    throw new PolyhopError('MODEL_ERROR', `Could not load ${basename(path)}: ${failures.join('; ')}`, {
      details: { file: path, attempts: failures },
    });
  }

  status(): ModelStatus {
    return { ...this.#status };
  }

  /** The llama.cpp binding this model runs on (shared; for a GGUF embedder on the same backend). */
  get runtime(): LlamaRuntime {
    return this.#runtime;
  }

  countTokens(text: string): number {
    return this.#model.tokenize(text).length;
  }

  /** Whether the vocabulary writes `text` back as it is (no character only an unknown token stands for). */
  #spells(text: string): boolean {
    return this.#model.detokenize(this.#model.tokenize(text)) === text;
  }

  async generateText(prompt: RenderedPrompt, options: LlmCallOptions = {}): Promise<LlmTextResult> {
    const result = await this.#generate(prompt, options, undefined, firstSampling(options));
    return { text: result.text, stopReason: result.stopReason, usage: result.usage };
  }

  async generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options: LlmCallOptions = {},
  ): Promise<LlmJsonResult<z.infer<S>>> {
    const { json, grammar: grammarSchema } = zodJsonSchema(schema);
    const grammar = await this.#grammar(
      withSpellableEnums(grammarSchema, (text) => this.#spells(text)),
      prompt,
    );
    return generateStructured(prompt, schema, json, options, (sampling) =>
      this.#generate(prompt, options, grammar, sampling),
    );
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const slot of this.#slots) {
      slot.quiet?.dispose({ disposeSequence: false });
      slot.chat.dispose({ disposeSequence: true });
    }
    await this.#context.dispose();
    await this.#model.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #grammar(schema: JsonSchema, prompt: RenderedPrompt): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (!grammar) {
      // The schema is only known at run time, so the generic inference of the typed API does not apply.
      const create = this.#runtime.llama.createGrammarForJsonSchema.bind(this.#runtime.llama) as (
        s: GbnfJsonSchema,
      ) => Promise<LlamaGrammar>;
      grammar = create(schema as GbnfJsonSchema).catch((error: unknown) => {
        this.#grammars.delete(key);
        throw new PolyhopError(
          'UNSUPPORTED',
          `${prompt.name}: its JSON schema cannot be turned into a grammar: ${error instanceof Error ? error.message : String(error)}`,
          {
            details: { prompt: prompt.name, schema },
            cause: error,
          },
        );
      });
      this.#grammars.set(key, grammar);
    }
    return grammar;
  }

  async #generate(
    prompt: RenderedPrompt,
    options: LlmCallOptions,
    grammar: LlamaGrammar | undefined,
    sampling: Sampling,
  ) {
    if (this.#disposed) throw new PolyhopError('MODEL_ERROR', `${basename(this.#path)} was unloaded`);
    const { signal } = options;
    throwIfAborted(signal);
    const slot = await this.#pool.acquire(signal);
    const started = performance.now();
    let completionTokens = 0;
    let reasoningTokens = 0;
    // Counts every generated token, reasoning included (onToken sees the answer only): that is what the call cost.
    const count = (chunk: { type?: string; segmentType?: string; tokens: readonly unknown[] }): void => {
      completionTokens += chunk.tokens.length;
      if (chunk.type === 'segment' && chunk.segmentType === 'thought') reasoningTokens += chunk.tokens.length;
    };
    try {
      const asked = options.reasoningTokens ?? LLM_CALL_DEFAULTS.reasoningTokens;
      // A template without a switch (QwQ) reasons whatever the step asks, so it gets a budget anyway.
      const reasons = this.reasons && (asked > 0 || slot.quiet === undefined);
      const chat = reasons || !slot.quiet ? slot.chat : slot.quiet;
      const history: ChatHistoryItem[] = [
        ...(prompt.system ? [{ type: 'system' as const, text: prompt.system }] : []),
        { type: 'user', text: prompt.user },
        { type: 'model', response: [] },
      ];
      const promptTokens = chat.chatWrapper
        .generateContextState({ chatHistory: history })
        .contextText.tokenize(this.#model.tokenizer).length;
      const room = slot.sequence.contextSize - promptTokens;
      if (room <= 0) {
        throw new PolyhopError(
          'BAD_INPUT',
          `${prompt.name}: prompt of ${promptTokens} tokens does not fit the ${slot.sequence.contextSize}-token context`,
          {
            details: { prompt: prompt.name, promptTokens, contextSize: slot.sequence.contextSize },
          },
        );
      }
      const budget = generationBudget({
        answerTokens: options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens,
        reasoningTokens: asked > 0 ? asked : LLM_CALL_DEFAULTS.reasoningTokens,
        room,
        reasons,
      });
      const common = {
        temperature: sampling.temperature,
        ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
      };
      let answerHistory = history;
      let answerTokens = budget.maxTokens;
      if (grammar && reasons && budget.thoughtTokens !== undefined && budget.thoughtTokens > 0) {
        const thought = await this.#think(chat, history, budget.thoughtTokens, common, count, signal);
        answerHistory = [...history.slice(0, -1), { type: 'model', response: thought }];
        answerTokens = Math.max(1, Math.min(options.maxTokens ?? LLM_CALL_DEFAULTS.maxTokens, room - completionTokens));
      }
      const response = await chat.generateResponse(answerHistory, {
        ...common,
        maxTokens: answerTokens,
        // 0 once the thought is written (or when the step does not reason): no segment is opened again.
        budgets: { thoughtTokens: answerHistory === history && reasons ? (budget.thoughtTokens ?? 0) : 0 },
        ...(grammar ? { grammar } : {}),
        ...(signal ? { signal } : {}),
        // The main response only: node-llama-cpp keeps reasoning segments out of onTextChunk.
        ...(options.onTextChunk ? { onTextChunk: options.onTextChunk } : {}),
        onResponseChunk: count,
      });
      const usage: LlmUsage = {
        promptTokens,
        completionTokens,
        reasoningTokens,
        durationMs: performance.now() - started,
        cached: false,
      };
      return { text: response.response, stopReason: toStopReason(response.metadata.stopReason), usage };
    } catch (error) {
      if (signal?.aborted) throw asCancelled(signal.reason);
      if (error instanceof PolyhopError) throw error;
      throw new PolyhopError(
        'MODEL_ERROR',
        `${prompt.name}: generation failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          details: { prompt: prompt.name },
          cause: error,
        },
      );
    } finally {
      this.#pool.release(slot);
    }
  }

  /**
   * The reasoning phase of a structured call: free generation (no grammar, so node-llama-cpp
   * detects the segment, or opens it at response start) that stops when the thought segment
   * closes, or at the first answer text of a model that chose not to reason. Returns the closed
   * thought segments, which the answer phase renders back as the start of the same response.
   */
  async #think(
    chat: LlamaChat,
    history: ChatHistoryItem[],
    thoughtTokens: number,
    sampling: { temperature: number; seed?: number },
    count: (chunk: { type?: string; segmentType?: string; tokens: readonly unknown[] }) => void,
    signal: AbortSignal | undefined,
  ): Promise<ChatModelResponse['response']> {
    const done = new AbortController();
    const forward = (): void => done.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const phase = await chat.generateResponse(history, {
        ...sampling,
        maxTokens: thoughtTokens + THOUGHT_PHASE_SLACK_TOKENS,
        budgets: { thoughtTokens },
        signal: done.signal,
        stopOnAbortSignal: true,
        onResponseChunk: (chunk) => {
          count(chunk);
          if (chunk.type === 'segment' ? chunk.segmentEndTime !== undefined : chunk.text !== '') done.abort();
        },
      });
      throwIfAborted(signal);
      return phase.fullResponse.flatMap((item) =>
        typeof item !== 'string' && item.segmentType === 'thought' ? [{ ...item, ended: true }] : [],
      );
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }
}

/**
 * Token budgets of one generation. A model whose chat template has a reasoning segment gets
 * `reasoningTokens` for it on top of the answer's `answerTokens` (node-llama-cpp makes it close
 * the segment and answer when spent), so reasoning cannot eat the answer; all within `room`.
 */
export function generationBudget(o: {
  answerTokens: number;
  reasoningTokens: number;
  room: number;
  reasons: boolean;
}): { maxTokens: number; thoughtTokens?: number } {
  if (!o.reasons) return { maxTokens: Math.min(o.answerTokens, o.room) };
  const thoughtTokens = Math.max(0, Math.min(o.reasoningTokens, o.room - Math.min(o.answerTokens, o.room)));
  return { maxTokens: Math.min(o.answerTokens + thoughtTokens, o.room), thoughtTokens };
}

function contextWhy(requested: number | undefined, trained: number | undefined, actual: number): string {
  if (requested !== undefined) return 'as set';
  const of = trained === undefined ? 'the trained context is unknown' : `trained for ${trained}`;
  return trained !== undefined && actual < trained ? `auto: ${of}, cut to fit free memory` : `auto: ${of}`;
}

interface LayerAttempt {
  gpuLayers: 'auto' | number | { fitContext: { contextSize: number } };
  label: string;
  why: string;
}

/** The offload settings to try in order: the requested one, then half the layers, then CPU only. */
export function planGpuLayers(
  requested: 'auto' | number,
  totalLayers: number,
  canOffload: boolean,
  totalContextTokens: number,
): LayerAttempt[] {
  const cpu: LayerAttempt = { gpuLayers: 0, label: 'CPU only', why: 'CPU only' };
  if (!canOffload || requested === 0) return [cpu];
  const first: LayerAttempt =
    requested === 'auto'
      ? {
          gpuLayers: { fitContext: { contextSize: totalContextTokens } },
          label: 'auto offload',
          why: 'auto: as many as fit in free VRAM beside the context',
        }
      : { gpuLayers: Math.min(requested, totalLayers), label: `${requested} GPU layers`, why: 'as requested' };
  const requestedLayers = requested === 'auto' ? totalLayers : Math.min(requested, totalLayers);
  const half = Math.floor(requestedLayers / 2);
  const halfAttempt: LayerAttempt = {
    gpuLayers: half,
    label: `${half} GPU layers`,
    why: 'fallback: half the layers after the first attempt failed',
  };
  return half > 0 && half !== requestedLayers ? [first, halfAttempt, cpu] : [first, cpu];
}

function toStopReason(reason: string): LlmStopReason {
  if (reason === 'maxTokens') return 'maxTokens';
  if (reason === 'abort') return 'abort';
  return 'eos';
}
