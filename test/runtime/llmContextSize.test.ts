import { describe, expect, it } from 'vitest';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';

/** The generation context follows the model's trained context unless set (tiny generated models; CPU, 1 thread). */
describe('LlamaCppLlm context size', () => {
  async function load(contextLength: number, contextSize?: number, contextNeed?: number) {
    const llm = await LlamaCppLlm.create({
      path: await tinyLlamaPath({ contextLength }),
      threads: 1,
      gpu: false,
      ...(contextNeed ? { contextNeed: () => contextNeed } : { sequences: 2 }),
      ...(contextSize ? { contextSize } : {}),
    });
    try {
      return { status: llm.status(), contextTokens: llm.contextTokens };
    } finally {
      await llm.dispose();
    }
  }

  it('defaults to the trained context, past the old 4,096 cap, and says why', async () => {
    const { status, contextTokens } = await load(16_384);
    expect([status.contextSize, contextTokens]).toEqual([16_384, 16_384]);
    expect(status.explanation).toMatch(/context 16384 tokens × 2 sequences \(auto: trained for 16384\)/);
  });

  it('stays within a smaller trained context', async () => {
    expect((await load(2048)).status.contextSize).toBe(2048);
  });

  it('sizes the sequences for the evidence the strategies need, and says so', async () => {
    const { status, contextTokens } = await load(16_384, undefined, 10_000);
    // The tiny model's cache fits four sequences of the trained context on any machine: none is given up.
    expect([status.sequences, contextTokens]).toEqual([4, 16_384]);
    expect(status.explanation).toMatch(
      /× 4 sequences \(auto: trained for 16384; auto: at least 10000 tokens a sequence/,
    );
  });

  it('keeps the override', async () => {
    const { status } = await load(16_384, 1024);
    expect(status.contextSize).toBe(1024);
    expect(status.explanation).toMatch(/context 1024 tokens × 2 sequences \(as set\)/);
  });
});
