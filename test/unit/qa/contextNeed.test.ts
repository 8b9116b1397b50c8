import { describe, expect, it } from 'vitest';
import { contextNeed, evidenceNeed, largestContextNeed } from '../../../src-main/engine/qa/contextNeed.js';
import { PROMPT_ROOM_TOKENS, resolveQaSettings } from '../../../src-main/engine/qa/settings.js';

// What each strategy's largest prompt needs, from its settings (the models/ tests check how a
// runtime uses it; these, inside qa/'s own list, that each strategy's sum is right).
describe('the context a strategy needs', () => {
  const settings = resolveQaSettings();
  const around = 512 + PROMPT_ROOM_TOKENS; // the larger of the answer and step budgets, and the prompt's own text

  it('sums the evidence of its settings, the answer budget and the prompt, per strategy', () => {
    expect(evidenceNeed('dr', settings)).toBe((30 + 10) * 200);
    expect(evidenceNeed('hyp', settings)).toBe(60 * 60);
    expect(evidenceNeed('dapt', settings)).toBe(Math.max(2 * 3, 5) * 400);
    expect(evidenceNeed('vector', settings)).toBe(10 * 1000);
    expect(evidenceNeed('llm-only', settings)).toBe(0);
    expect(contextNeed('vector', settings, false)).toBe(10_000 + around);
    expect(contextNeed('vector', resolveQaSettings({ 'vector.topK': 3 }), false)).toBe(3000 + around);
    expect(contextNeed('dr', settings, true)).toBe(8000 + around + 1024);
    expect(largestContextNeed(settings, false)).toBe(10_000 + around);
  });

  it('takes shared.evidenceMaxTokens instead of the strategy evidence when it is set', () => {
    expect(contextNeed('vector', resolveQaSettings({ 'shared.evidenceMaxTokens': 700 }), false)).toBe(700 + around);
  });
});
