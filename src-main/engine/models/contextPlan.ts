/** Parallel sequences when neither the user nor the evidence need says otherwise. */
export const DEFAULT_SEQUENCES = 4;
/** Smallest context the automatic size may settle on (or the trained context when that is smaller): DR's prompts need room. */
export const MIN_AUTO_CONTEXT = 4096;

/** A context size as node-llama-cpp takes it: a number, or the largest that fits memory within bounds (per sequence). */
export type ContextSizeOption = number | { min: number; max?: number };

export interface ContextPlanInput {
  /** Tokens per sequence set when loading the model (wins). Default: automatic. */
  contextSize?: number;
  /** Sequences set when loading the model (wins). Default: planned. */
  sequences?: number;
  /** The model's trained context, when its GGUF says. */
  trained?: number;
  /**
   * Context tokens one sequence needs for the evidence the strategies want (qa/contextNeed.ts).
   * Default: none (4 sequences of whatever context fits, as before).
   */
  needTokens?: number;
}

export interface ContextAttempt {
  sequences: number;
  contextSize: ContextSizeOption;
  /** Why this size, for the model's status line. */
  why: string;
}

/** The automatic per-sequence size: the trained context, cut to memory, never below {@link MIN_AUTO_CONTEXT}. */
export function autoContextSize(trained: number | undefined): { min: number; max?: number } {
  return trained === undefined ? { min: MIN_AUTO_CONTEXT } : { min: Math.min(MIN_AUTO_CONTEXT, trained), max: trained };
}

/**
 * The contexts to try, in order, until one fits memory (node-llama-cpp refuses a `min` that does
 * not fit). Parallel sequences share the memory of the KV cache, and every sequence is one prompt's
 * whole context, so the evidence a strategy needs decides: first 4, then 2, then 1 sequence of at
 * least the need (cut to the trained context), then, when not even one fits, one sequence of the
 * largest context that does (the evidence is then cut, and the trace says what did not fit). Sizes
 * or sequences set by the user are kept as set.
 */
export function planContexts(input: ContextPlanInput): ContextAttempt[] {
  const { trained, needTokens } = input;
  if (input.contextSize !== undefined)
    return [{ sequences: input.sequences ?? DEFAULT_SEQUENCES, contextSize: input.contextSize, why: 'as set' }];
  const auto = autoContextSize(trained);
  if (needTokens === undefined || needTokens <= 0)
    return [{ sequences: input.sequences ?? DEFAULT_SEQUENCES, contextSize: auto, why: 'auto' }];
  const need = Math.max(auto.min, trained === undefined ? needTokens : Math.min(needTokens, trained));
  const capped = trained !== undefined && needTokens > trained ? ` (the trained ${trained}; ${needTokens} wanted)` : '';
  const counts = input.sequences !== undefined ? [input.sequences] : [DEFAULT_SEQUENCES, 2, 1];
  const attempts: ContextAttempt[] = counts.map((sequences) => ({
    sequences,
    contextSize: { min: need, ...(auto.max !== undefined ? { max: auto.max } : {}) },
    why: `auto: at least ${need} tokens a sequence for the evidence the strategies need${capped}`,
  }));
  if (need > auto.min)
    attempts.push({
      sequences: input.sequences ?? 1,
      contextSize: auto,
      why: `auto: ${need} tokens a sequence for the evidence do not fit memory, so the largest that does (evidence is cut)`,
    });
  return attempts;
}

export interface ServerContextInput {
  /** Tokens of one call's context as the server reports them (llama-server's per-slot `n_ctx`, vLLM's `max_model_len`); undefined when it does not say. */
  contextTokens: number | undefined;
  /** Context tokens one call needs for the evidence the strategies want (qa/contextNeed.ts, with the reasoning budget when the model reasons). */
  needTokens: number;
  /** The endpoint's parallel slots: llama-server splits `-c` over `--parallel` slots. */
  slots: number;
}

/**
 * The plan of an inference server's context: the server sets it (llama-server `-c` over its
 * `--parallel` slots, vLLM `--max-model-len`), so nothing is chosen here; the evidence budget
 * follows the context the server reports, the reasoning budget kept out of it once the model is
 * seen to reason (qa/settings.ts `evidenceBudget`), and this line says whether that context holds
 * the evidence the strategies need, and what to start the server with when it does not.
 */
export function serverContextPlan(input: ServerContextInput): string {
  const { contextTokens, needTokens, slots } = input;
  const n = (x: number): string => x.toLocaleString('en-US');
  if (contextTokens === undefined)
    return `the server reports no context size: the evidence budget is the default (the strategies' evidence wants ${n(needTokens)} tokens a call)`;
  if (contextTokens >= needTokens)
    return `${n(contextTokens)} tokens a call as the server reports it: holds the ${n(needTokens)} the strategies' evidence needs`;
  return (
    `${n(contextTokens)} tokens a call as the server reports it, less than the ${n(needTokens)} the strategies' evidence needs: evidence is cut to what fits ` +
    `(llama-server: -c ${n(needTokens * slots)} for ${slots} slot${slots === 1 ? '' : 's'}; vLLM: --max-model-len ${n(needTokens)})`
  );
}
