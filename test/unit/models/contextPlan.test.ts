import { describe, expect, it } from 'vitest';
import { planContexts, type ContextAttempt } from '../../../src-main/engine/models/contextPlan.js';
import { contextNeed, evidenceNeed, largestContextNeed } from '../../../src-main/engine/qa/contextNeed.js';
import { evidenceBudget, resolveQaSettings } from '../../../src-main/engine/qa/settings.js';
import { STRATEGIES } from '../../../src-main/engine/qa/Answer.js';

/**
 * How node-llama-cpp sizes a context against memory (dist/gguf/insights/utils/resolveContextContextSizeOption.js,
 * lines 41–127 of 3.21.1): a `{min, max}` size becomes the largest per-sequence size up to `max`
 * whose KV cache for all sequences fits, and InsufficientMemoryError when not even `min` fits; a
 * number fits or fails. Memory is counted here in KV tokens (all sequences together).
 */
function createContext(attempt: ContextAttempt, memoryTokens: number): number {
  const { sequences, contextSize } = attempt;
  const largest = Math.floor(memoryTokens / sequences);
  if (typeof contextSize === 'number') {
    if (contextSize > largest) throw new Error('InsufficientMemoryError');
    return contextSize;
  }
  const size = Math.min(contextSize.max ?? Number.POSITIVE_INFINITY, largest);
  if (size < contextSize.min) throw new Error('InsufficientMemoryError');
  return size;
}

/** What LlamaCppLlm.create ends with: the first attempt that fits. */
function load(attempts: ContextAttempt[], memoryTokens: number): { sequences: number; contextTokens: number } {
  for (const attempt of attempts) {
    try {
      return { sequences: attempt.sequences, contextTokens: createContext(attempt, memoryTokens) };
    } catch {
      // next attempt
    }
  }
  throw new Error('nothing fits');
}

const settings = resolveQaSettings();

describe('context sizing for the evidence', () => {
  it('a strategy’s context need gives it its whole evidence need back as budget', () => {
    for (const strategy of STRATEGIES)
      for (const reasons of [false, true])
        expect(evidenceBudget(settings, contextNeed(strategy, settings, reasons), reasons)).toBe(
          Math.max(256, evidenceNeed(strategy, settings)),
        );
    // DR: 30 + 10 summaries of ~200 tokens.
    expect(evidenceNeed('dr', settings)).toBe(8000);
    expect(contextNeed('dr', settings, true)).toBe(8000 + 512 + 1024 + 1024);
    expect(largestContextNeed(settings, false)).toBe(contextNeed('vector', settings, false));
  });

  it('memory for 4 × 4,096 tokens: one sequence of 16,384, so DR’s 40 summaries fit instead of ~7', () => {
    const memory = 4 * 4096;
    const need = contextNeed('dr', settings, true);
    // Before: 4 sequences of 4,096 leave 1,536 evidence tokens.
    const before = load(planContexts({ trained: 32_768 }), memory);
    expect(before).toEqual({ sequences: 4, contextTokens: 4096 });
    expect(evidenceBudget(settings, before.contextTokens, true)).toBe(1536);
    const after = load(planContexts({ trained: 32_768, needTokens: need }), memory);
    expect(after).toEqual({ sequences: 1, contextTokens: 16_384 });
    expect(evidenceBudget(settings, after.contextTokens, true)).toBeGreaterThanOrEqual(evidenceNeed('dr', settings));
  });

  it('keeps as many sequences as memory allows at the need, and falls back to the largest context that fits', () => {
    const need = 10_560;
    const attempts = planContexts({ trained: 32_768, needTokens: need });
    expect(attempts.map((a) => [a.sequences, a.contextSize])).toEqual([
      [4, { min: need, max: 32_768 }],
      [2, { min: need, max: 32_768 }],
      [1, { min: need, max: 32_768 }],
      [1, { min: 4096, max: 32_768 }],
    ]);
    expect(load(attempts, 200_000)).toEqual({ sequences: 4, contextTokens: 32_768 });
    expect(load(attempts, 30_000)).toEqual({ sequences: 2, contextTokens: 15_000 });
    expect(load(attempts, 8_000)).toEqual({ sequences: 1, contextTokens: 8_000 });
    expect(attempts.at(-1)!.why).toMatch(/do not fit memory/);
  });

  it('caps the need at the trained context and keeps what the user set', () => {
    const capped = planContexts({ trained: 8192, needTokens: 12_000 });
    expect(capped[0]).toMatchObject({ sequences: 4, contextSize: { min: 8192, max: 8192 } });
    expect(capped[0]!.why).toMatch(/trained 8192; 12000 wanted/);
    expect(capped.at(-1)).toMatchObject({ sequences: 1, contextSize: { min: 4096, max: 8192 } });
    expect(planContexts({ trained: 8192, needTokens: 12_000, contextSize: 4096, sequences: 4 })).toEqual([
      { sequences: 4, contextSize: 4096, why: 'as set' },
    ]);
    expect(planContexts({ trained: 8192, needTokens: 12_000, sequences: 2 }).map((a) => a.sequences)).toEqual([2, 2]);
    // No need given: four sequences of the automatic size, as before.
    expect(planContexts({ trained: 8192 })).toEqual([
      { sequences: 4, contextSize: { min: 4096, max: 8192 }, why: 'auto' },
    ]);
  });
});
