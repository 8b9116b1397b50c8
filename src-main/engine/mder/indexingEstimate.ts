import {
  ESTIMATE_MODEL,
  formatAbout,
  inferenceSeconds,
  roundForPlan,
  RTX_3090_LLAMA_8B,
  type GpuThroughput,
} from '../models/gpuThroughput.js';

/** LLM tokens indexing spends per character of source text. */
export interface IndexingTokenRates {
  inputPerChar: number;
  outputPerChar: number;
}

/**
 * Measured by `npm run bench indexing -- --n 500` (MuSiQue passages, the batched MDER plan with
 * Preprocess 8 documents of one chunk to a call, the default; scripted replies counted as
 * Qwen3-8B with its chat template, the default reasoning policy: only Disambiguate reasons, with
 * its whole 1024-token budget counted as spent, an upper bound) on 2026-12-07, its line "LLM tokens
 * per source character" (4.97 input, 4.04 output before, with one Preprocess call per chunk).
 * Rerun the bench and update these when the plan, the prompts or the reasoning policy change.
 */
export const MEASURED_INDEXING_RATES: IndexingTokenRates = { inputPerChar: 4.56, outputPerChar: 4.07 };

/** A page for estimates: 500 words of running English text, ~3,000 characters. */
export const PAGE_CHARS = 3000;

export interface IndexingEstimate {
  seconds: number;
  rounded: ReturnType<typeof roundForPlan>;
  /** The GPU the figures are for (published llama.cpp rates; see {@link GpuThroughput}). */
  gpu: string;
  /** The catalog model the tokens were counted for. */
  model: string;
  /** "about 2 h 10 min on an RTX 3090 with Qwen3-8B Q4_K_M". */
  text: string;
}

/**
 * How long indexing `sourceChars` characters of text would take on a named GPU with Qwen3-8B
 * Q4_K_M and `parallel` sequences: measured tokens per character, timed at published rates. A plan
 * for the user, not a promise: their GPU, model and documents differ.
 *
 * ```ts
 * estimateIndexing(1000 * PAGE_CHARS).text // "about … on an RTX 3090 with Qwen3-8B Q4_K_M"
 * ```
 */
export function estimateIndexing(
  sourceChars: number,
  options: { rates?: IndexingTokenRates; gpu?: GpuThroughput; parallel?: number } = {},
): IndexingEstimate {
  const rates = options.rates ?? MEASURED_INDEXING_RATES;
  const gpu = options.gpu ?? RTX_3090_LLAMA_8B;
  const seconds = inferenceSeconds(gpu, {
    inputTokens: sourceChars * rates.inputPerChar,
    outputTokens: sourceChars * rates.outputPerChar,
    parallel: options.parallel ?? 4,
  });
  const model = ESTIMATE_MODEL;
  return {
    seconds,
    rounded: roundForPlan(seconds),
    gpu: gpu.gpu,
    model,
    text: `${formatAbout(seconds)} on an ${gpu.gpu} with ${model}`,
  };
}
