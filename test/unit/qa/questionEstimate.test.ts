import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRATEGIES, type QuestionEstimate } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { RTX_3090_LLAMA_8B } from '../../../src-main/engine/models/gpuThroughput.js';
import { estimateQuestion, MEASURED_QUESTION_TOKENS } from '../../../src-main/engine/qa/index.js';
import { call, tempEngine } from '../../support/tempEngine.js';

describe('estimateQuestion', () => {
  it('times a question’s tokens at the GPU profile rates, one sequence, reasoning as the upper end', () => {
    const tokens = { inputTokens: 9000, outputTokens: 300, reasoningTokens: 4096 };
    const { promptTokensPerSecond, decodeTokensPerSecond } = RTX_3090_LLAMA_8B;
    const estimate = estimateQuestion('dr', { tokens });
    expect(estimate.seconds).toBeCloseTo(9000 / promptTokensPerSecond + 300 / decodeTokensPerSecond[0]!, 6);
    expect(estimate.reasoningSeconds).toBeCloseTo(9000 / promptTokensPerSecond + 4396 / decodeTokensPerSecond[0]!, 6);
    expect(estimate.text).toBe('about 6 s (up to about 32 s with reasoning) on an RTX 3090 with Qwen3-8B Q4_K_M');
    // Without reasoning tokens there is no range to give.
    expect(estimateQuestion('vector', { tokens: { ...tokens, reasoningTokens: 0 } }).text).toBe(
      'about 6 s on an RTX 3090 with Qwen3-8B Q4_K_M',
    );
  });

  it('ships measured tokens for every strategy: multi-step plans spend more than one call does', () => {
    for (const strategy of STRATEGIES) expect(MEASURED_QUESTION_TOKENS[strategy].inputTokens).toBeGreaterThan(0);
    const seconds = (s: (typeof STRATEGIES)[number]) => estimateQuestion(s).seconds;
    for (const multiStep of ['dr', 'hyp', 'dapt'] as const)
      expect(seconds(multiStep)).toBeGreaterThan(seconds('llm-only'));
  });
});

describe('qa:estimate', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ engine, dispose } = await tempEngine());
  });
  afterAll(async () => {
    await dispose();
  });

  it('answers every strategy’s estimate, in the order of STRATEGIES', async () => {
    const estimates = await call<QuestionEstimate[]>(engine, 'qa:estimate', {});
    expect(estimates.map((e) => e.strategy)).toEqual([...STRATEGIES]);
    for (const e of estimates) expect(e).toEqual(estimateQuestion(e.strategy));
  });
});
