import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  decodeRate,
  formatAbout,
  inferenceSeconds,
  type GpuThroughput,
} from '../../../src-main/engine/models/gpuThroughput.js';
import { SimulatedGpu } from '../../support/SimulatedGpu.js';

// Round figures so the expected times can be worked out by hand.
const GPU: GpuThroughput = {
  gpu: 'test',
  measuredWith: 'test',
  source: 'test',
  promptTokensPerSecond: 1000,
  decodeTokensPerSecond: [100, 150, 180, 200],
};

describe('inferenceSeconds', () => {
  it('times prompts at the prompt rate and replies at the batched decode rate', () => {
    expect(inferenceSeconds(GPU, { inputTokens: 2000, outputTokens: 300, parallel: 1 })).toBeCloseTo(2 + 3);
    expect(inferenceSeconds(GPU, { inputTokens: 2000, outputTokens: 400, parallel: 4 })).toBeCloseTo(2 + 2);
    expect(decodeRate(GPU, 9)).toBe(200);
  });

  it('rounds durations to what a plan needs', () => {
    expect(formatAbout(25)).toBe('about 25 s');
    expect(formatAbout(40 * 60 + 10)).toBe('about 40 min');
    expect(formatAbout(2 * 3600 + 8 * 60)).toBe('about 2 h 10 min');
    expect(formatAbout(14 * 3600 + 20 * 60)).toBe('about 14 h');
  });
});

describe('SimulatedGpu (on a fake clock)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function finishTimes(
    gpu: SimulatedGpu,
    calls: { prompt: number; output: number; at?: number }[],
  ): Promise<number[]> {
    const start = performance.now();
    const times: number[] = [];
    const runs = calls.map(async (c, i) => {
      if (c.at) await new Promise((r) => setTimeout(r, c.at));
      await gpu.run(c.prompt, c.output);
      times[i] = (performance.now() - start) / 1000;
    });
    await vi.runAllTimersAsync();
    await Promise.all(runs);
    return times;
  }

  it('holds a call for its prompt and its output tokens', async () => {
    const [t] = await finishTimes(new SimulatedGpu(GPU), [{ prompt: 500, output: 100 }]);
    expect(t).toBeCloseTo(0.5 + 1, 2);
  });

  it('decodes parallel calls in one batch: each slower, all together faster than one after another', async () => {
    const times = await finishTimes(
      new SimulatedGpu(GPU),
      Array.from({ length: 4 }, () => ({ prompt: 0, output: 200 })),
    );
    // 4 sequences decode at 200 t/s in all, 50 each: 200 tokens take 4 s (serially: 8 s).
    for (const t of times) expect(t).toBeCloseTo(4, 2);
  });

  it('shares the rate as calls come and go, prompts first', async () => {
    // A decodes alone at 100 t/s for 1 s (100 tokens), then B's 1000-token prompt takes the GPU
    // for 1 s; then both decode at 75 t/s each: A's last 50 tokens take 0.667 s; B then runs alone.
    const [a, b] = await finishTimes(new SimulatedGpu(GPU), [
      { prompt: 0, output: 150 },
      { prompt: 1000, output: 100, at: 1000 },
    ]);
    expect(a).toBeCloseTo(2 + 50 / 75, 2);
    expect(b).toBeCloseTo(2 + 50 / 75 + (100 - 50) / 100, 2);
  });
});
