/**
 * Published llama.cpp throughput for a named GPU and model, and the time a batch of LLM work takes
 * at those rates: what the app's time estimates and the pool benchmark's simulated GPU use. No
 * figure here was measured by Polyhop; each says where it comes from.
 */
export interface GpuThroughput {
  /** The GPU, e.g. 'RTX 3090'. */
  gpu: string;
  /** The model the figures were measured with, as the source names it. */
  measuredWith: string;
  /** Where the figures come from. */
  source: string;
  /** Prompt processing, tokens per second (compute-bound: batching sequences does not add to it). */
  promptTokensPerSecond: number;
  /** Aggregate decoding throughput with 1, 2, … sequences decoding in the same step. */
  decodeTokensPerSecond: readonly number[];
}

/**
 * RTX 3090, Llama-architecture 8B, llama.cpp CUDA: the size class of the catalog's Qwen3-8B.
 * Decoding: ggml-org/llama.cpp PR #15802, "llama 8B Q4_0", flash attention on, `pp512` at
 * micro-batch b = 1…8 (the PR's column): a micro-batch of b tokens is what b slots decoding one
 * token each put through the weights, so it is batched decoding's aggregate rate. It grows
 * sub-linearly (1.79× at 2, 3.0× at 4, 3.7× at 8): one weight read serves b tokens until compute
 * and the per-sequence KV reads catch up. Prompt: PR #7716, "llama 8B Q5_0", micro-batch 512,
 * `pp2048`, 2187.50 t/s (the Q4_0 row of that table was not in the excerpt we read).
 */
export const RTX_3090_LLAMA_8B: GpuThroughput = {
  gpu: 'RTX 3090',
  measuredWith: 'llama 8B Q4_0 (decode) / Q5_0 (prompt), llama.cpp CUDA',
  source:
    'github.com/ggml-org/llama.cpp/pull/15802 (decode, ubatch 1-8); github.com/ggml-org/llama.cpp/pull/7716 (prompt, ubatch 512)',
  promptTokensPerSecond: 2187.5,
  decodeTokensPerSecond: [156.56, 279.89, 390.96, 470.48, 509.7, 541.57, 559.3, 583.77],
};

/** The catalog model whose tokens the time estimates count (indexing, questions) at these rates. */
export const ESTIMATE_MODEL = 'Qwen3-8B Q4_K_M';

/** Aggregate decode tokens per second with `sequences` decoding together; past the table the last figure holds. */
export function decodeRate(profile: GpuThroughput, sequences: number): number {
  const table = profile.decodeTokensPerSecond;
  return table[Math.min(Math.max(1, Math.round(sequences)), table.length) - 1]!;
}

/**
 * Seconds a GPU takes for `inputTokens` of prompts and `outputTokens` of replies with `parallel`
 * sequences kept busy: prompts at the prompt rate, replies at the batched decode rate.
 */
export function inferenceSeconds(
  profile: GpuThroughput,
  work: { inputTokens: number; outputTokens: number; parallel: number },
): number {
  return work.inputTokens / profile.promptTokensPerSecond + work.outputTokens / decodeRate(profile, work.parallel);
}

/** A duration rounded to what a plan needs: seconds under 90 s, minutes under an hour, 10 min under 10 h, else hours. */
export function roundForPlan(seconds: number): { hours: number; minutes: number; seconds: number } {
  if (seconds < 90) return { hours: 0, minutes: 0, seconds: Math.max(1, Math.round(seconds)) };
  const minutes = Math.round(seconds / 60);
  const rounded =
    minutes < 60 ? minutes : minutes < 600 ? Math.round(minutes / 10) * 10 : Math.round(minutes / 60) * 60;
  return { hours: Math.floor(rounded / 60), minutes: rounded % 60, seconds: 0 };
}

/** "about 2 h 10 min", "about 40 min", "about 25 s" (see {@link roundForPlan}). */
export function formatAbout(seconds: number): string {
  const r = roundForPlan(seconds);
  const parts = [r.hours && `${r.hours} h`, r.minutes && `${r.minutes} min`, r.seconds && `${r.seconds} s`].filter(
    Boolean,
  );
  return `about ${parts.join(' ')}`;
}
