import { parseArgs } from 'node:util';
import { z } from 'zod';
import { isCancellation, PolyhopError } from '../../src-main/engine/base/errors.js';
import { LlamaCppLlm, type LlamaCppLlmOptions } from '../../src-main/engine/models/LlamaCppLlm.js';
import type { RenderedPrompt } from '../../src-main/engine/models/Llm.js';
import type { LlamaGpuChoice } from '../../src-main/engine/models/llamaRuntime.js';
import { BIG_LLAMA_SHAPE, tinyLlamaPath, type TinyLlamaOptions } from '../fixtures/tinyLlama.js';

/**
 * Generation throughput of LlamaCppLlm on a generated llama: completion tokens/s with 1 vs N
 * parallel sequences (1 is the baseline), and grammar-constrained JSON vs free text.
 *
 *   npm run bench models                                   # tiny fixture on the CPU, threads 1
 *   npm run bench models -- --calls 32 --sequences 8 --tokens 128
 *   npm run bench models -- --big --gpu auto --threads 4   # ~1.1B-parameter shape (F16, ~2.2 GB), for a GPU
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      calls: { type: 'string', default: '8' },
      sequences: { type: 'string', default: '4' },
      tokens: { type: 'string', default: '64' },
      threads: { type: 'string', default: '1' },
      gpu: { type: 'string', default: 'false' },
      big: { type: 'boolean', default: false },
    },
  });
  const calls = Number(values.calls);
  const sequences = Number(values.sequences);
  const tokens = Number(values.tokens);
  const gpu = parseGpu(String(values.gpu));
  const shape: TinyLlamaOptions = values.big ? BIG_LLAMA_SHAPE : {};
  const path = await tinyLlamaPath(shape);
  const base: Omit<LlamaCppLlmOptions, 'sequences'> = { path, threads: Number(values.threads), gpu, contextSize: 1024 };
  console.log(
    `model ${path.split('/').pop()}; ${calls} calls × ${tokens} tokens; threads ${base.threads}; gpu ${String(gpu)}`,
  );

  const one = await measureGeneration({ ...base, sequences: 1 }, { calls, tokens, concurrency: 1 });
  const many = await measureGeneration({ ...base, sequences }, { calls, tokens, concurrency: sequences });
  const json = await measureGeneration(
    { ...base, sequences },
    { calls, tokens, concurrency: sequences, structured: true },
  );
  console.log(`backend: ${many.status}`);
  report('free text, 1 sequence (baseline)', one.tokensPerSecond, one.tokensPerSecond);
  report(`free text, ${sequences} sequences`, many.tokensPerSecond, one.tokensPerSecond);
  report(
    `JSON under grammar, ${sequences} sequences`,
    json.tokensPerSecond,
    many.tokensPerSecond,
    `vs free text, ${sequences} sequences`,
  );
}

export interface GenerationRun {
  calls: number;
  /** maxTokens per call. */
  tokens: number;
  /** Calls in flight at once. */
  concurrency: number;
  /** Generate JSON under a grammar instead of free text. */
  structured?: boolean;
  /** Stop after this long, counting the tokens of calls cut short (slow settings). Default 60 s. */
  budgetMs?: number;
}

export interface GenerationResult {
  tokensPerSecond: number;
  completionTokens: number;
  seconds: number;
  status: string;
}

const benchSchema = z.object({
  title: z.string().max(40),
  kind: z.enum(['person', 'place', 'organisation', 'event']),
  facts: z
    .array(z.object({ subject: z.string().max(20), relation: z.string().max(20), object: z.string().max(20) }))
    .max(4),
});

/** Loads a model with `options`, warms it up, then times `run.calls` calls; completion tokens/s over wall time. */
export async function measureGeneration(options: LlamaCppLlmOptions, run: GenerationRun): Promise<GenerationResult> {
  const llm = await LlamaCppLlm.create(options);
  try {
    const prompt = (i: number): RenderedPrompt => ({
      name: 'bench/gen',
      version: '1',
      system: 'You write short notes.',
      user: `Note number ${i}.`,
      variables: {},
    });
    await llm.generateText(prompt(-1), { maxTokens: 1 });
    const signal = AbortSignal.timeout(run.budgetMs ?? 60_000);
    let next = 0;
    let completionTokens = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < run.calls && !signal.aborted) {
        const i = next++;
        let partial = '';
        const options = { signal, onTextChunk: (text: string) => (partial += text) };
        try {
          const result = run.structured
            ? await llm.generateJson(prompt(i), benchSchema, { ...options, maxTokens: run.tokens })
            : await llm.generateText(prompt(i), { ...options, maxTokens: run.tokens });
          completionTokens += result.usage.completionTokens;
        } catch (error) {
          // JSON cut by the same maxTokens as free text (like with like): its tokens were still generated.
          if (error instanceof PolyhopError && error.code === 'LLM_OUTPUT_INVALID') {
            completionTokens +=
              (error.details as { usage?: { completionTokens: number } }).usage?.completionTokens ?? 0;
            continue;
          }
          if (!isCancellation(error)) throw error;
          completionTokens += llm.countTokens(partial); // cut short by the budget: count what was streamed
        }
      }
    };
    await Promise.all(Array.from({ length: run.concurrency }, worker));
    const seconds = (performance.now() - started) / 1000;
    return { tokensPerSecond: completionTokens / seconds, completionTokens, seconds, status: llm.status().explanation };
  } finally {
    await llm.dispose();
  }
}

export function report(label: string, value: number, baseline: number, baselineLabel = 'baseline'): void {
  console.log(
    `${label.padEnd(44)} ${value.toFixed(1).padStart(9)} tokens/s   ×${(value / baseline).toFixed(2)} ${baselineLabel === 'baseline' ? '' : `(${baselineLabel})`}`,
  );
}

function parseGpu(value: string): LlamaGpuChoice {
  if (value === 'false' || value === 'cpu') return false;
  if (value === 'auto' || value === 'cuda' || value === 'vulkan' || value === 'metal') return value;
  throw new Error(`--gpu must be auto, cuda, vulkan, metal or false (got ${value})`);
}
