import { parseArgs } from 'node:util';
import { getLlamaRuntime } from '../../src-main/engine/models/llamaRuntime.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { measureGeneration, report } from './models.bench.js';

/**
 * Why tests pin `threads: 1`: generation tokens/s on the fixture with 1 thread (baseline) vs
 * the CPU's math cores (Polyhop's CPU default) vs node-llama-cpp's default thread count
 * (`maxThreads`, at least 4), and 1 vs 4 parallel sequences at 1 thread. Each setting stops after
 * `--budget` seconds (tokens of a call cut short still count), so thrashing threads cannot stall the run.
 *
 *   npm run bench threads -- --calls 8 --tokens 64 --budget 15
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      calls: { type: 'string', default: '8' },
      tokens: { type: 'string', default: '64' },
      budget: { type: 'string', default: '15' },
    },
  });
  const calls = Number(values.calls);
  const tokens = Number(values.tokens);
  const budgetMs = Number(values.budget) * 1000;
  const path = await tinyLlamaPath();
  const { llama } = await getLlamaRuntime(false);
  const base = { path, gpu: false as const, contextSize: 1024 };
  console.log(
    `fixture ${path.split('/').pop()}; ${calls} calls × ${tokens} tokens; cpuMathCores ${llama.cpuMathCores}, node-llama-cpp maxThreads ${llama.maxThreads}`,
  );

  const serial = { calls, tokens, concurrency: 1, budgetMs };
  const t1 = await measureGeneration({ ...base, threads: 1, sequences: 1 }, serial);
  const tCores = await measureGeneration({ ...base, threads: llama.cpuMathCores, sequences: 1 }, serial);
  const tDefault = await measureGeneration({ ...base, threads: llama.maxThreads, sequences: 1 }, serial);
  const s4 = await measureGeneration(
    { ...base, threads: 1, sequences: 4 },
    { calls, tokens, concurrency: 4, budgetMs },
  );

  report('threads 1, 1 sequence (baseline)', t1.tokensPerSecond, t1.tokensPerSecond);
  report(`threads ${llama.cpuMathCores} (math cores, Polyhop CPU default)`, tCores.tokensPerSecond, t1.tokensPerSecond);
  report(`threads ${llama.maxThreads} (node-llama-cpp default)`, tDefault.tokensPerSecond, t1.tokensPerSecond);
  report('threads 1, 4 sequences in parallel', s4.tokensPerSecond, t1.tokensPerSecond);
}
