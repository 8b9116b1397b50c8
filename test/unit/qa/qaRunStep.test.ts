import { afterEach, describe, expect, it, vi } from 'vitest';
import { QaRun } from '../../../src-main/engine/qa/QaRun.js';
import { resolveQaSettings } from '../../../src-main/engine/qa/settings.js';
import type { QaContext } from '../../../src-main/engine/qa/types.js';

afterEach(() => vi.restoreAllMocks());

// A step's trace entry, with the clock read from a stub rather than measured (no timed assertion).
describe('a QA run step', () => {
  const run = (): QaRun =>
    new QaRun(
      { kb: {}, llm: null, embedder: {}, prompts: {} } as unknown as QaContext,
      resolveQaSettings(),
      'q',
      'en',
      { strategy: 'dr' },
    );

  it('records its time in milliseconds to one decimal, and its error when it fails', async () => {
    const r = run();
    const clock = vi.spyOn(performance, 'now');
    clock.mockReturnValueOnce(1000).mockReturnValueOnce(1012.345);
    await r.step('ok', async () => 1);
    clock.mockReturnValueOnce(2000).mockReturnValueOnce(2000.06);
    await expect(
      r.step('fails', async () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(r.trace).toEqual([
      { step: 'ok', detail: {}, llmCalls: 0, promptTokens: 0, completionTokens: 0, ms: 12.3 },
      { step: 'fails', detail: { error: 'no' }, llmCalls: 0, promptTokens: 0, completionTokens: 0, ms: 0.1 },
    ]);
  });

  it('halves the evidence budget once', () => {
    const r = run();
    expect(r.shrinkEvidence()).toBe(true);
    expect(r.shrinkEvidence()).toBe(false);
  });
});
