import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { QwenChatWrapper, type ChatWrapper } from 'node-llama-cpp';
import { printDoctor } from '../../src-main/cli/format.js';
import { LlamaCppLlm } from '../../src-main/engine/models/LlamaCppLlm.js';
import type { RenderedPrompt } from '../../src-main/engine/models/Llm.js';
import { reasoningTokensFor } from '../../src-main/engine/models/reasoningPolicy.js';
import { inspectGguf } from '../../src-main/engine/models/inspectGguf.js';
import { TEMPLATED_MODELS, templatedLlamaPath, type TemplatedModelSpec } from '../fixtures/templatedLlama.js';

/**
 * The catalog's generation models' real chat templates and tokenizers, through the real
 * node-llama-cpp and the product's LlamaCppLlm: structured calls return valid JSON, and the
 * reasoning policy decides whether the thought segment is written (counted by the call's usage).
 */
const prompt = (name: string, user: string): RenderedPrompt => ({
  name,
  version: '1',
  system: 'Reply with JSON only.',
  user,
  variables: { user },
});

const replySchema = z.object({ answer: z.string().min(1).max(8) });
const REASONING_BUDGET = 64;
const ANSWER_TOKENS = 48;

interface Case {
  spec: TemplatedModelSpec;
  wrapper: RegExp;
  reasons: boolean;
  /** Whether the template has a switch that turns reasoning off for a step (QwQ has none). */
  switchable: boolean;
  /** A chat wrapper given instead of the one resolved from the template. */
  chatWrapper?: () => ChatWrapper;
}

const CASES: [string, Case][] = [
  [
    'Qwen3-8B (thinking, enable_thinking switch)',
    { spec: TEMPLATED_MODELS.qwen3, wrapper: /^Qwen \(variation 3\)$/, reasons: true, switchable: true },
  ],
  [
    'Qwen3-4B-Instruct-2507 (no thinking)',
    { spec: TEMPLATED_MODELS.qwen3Instruct, wrapper: /^Qwen \(variation 3\)$/, reasons: false, switchable: false },
  ],
  [
    'gpt-oss-20b (analysis channel)',
    { spec: TEMPLATED_MODELS.gptOss, wrapper: /^Harmony$/, reasons: true, switchable: true },
  ],
  [
    'QwQ-32B with the wrapper resolved from its template (its generation prompt opens <think>)',
    { spec: TEMPLATED_MODELS.qwq, wrapper: /^Qwen \(variation 3\.5\)$/, reasons: true, switchable: false },
  ],
  [
    'QwQ-32B under Qwen variation 3.5 (the wrapper opens the thought at response start)',
    {
      spec: TEMPLATED_MODELS.qwq,
      wrapper: /variation 3\.5/,
      reasons: true,
      switchable: false,
      chatWrapper: () => new QwenChatWrapper({ variation: '3.5' }),
    },
  ],
];

describe.each(CASES)('%s on a tiny GGUF with its real template (threads: 1)', (_label, c) => {
  let llm: LlamaCppLlm;

  beforeAll(async () => {
    llm = await LlamaCppLlm.create({
      path: await templatedLlamaPath(c.spec),
      threads: 1,
      sequences: 1,
      contextSize: 1024,
      gpu: false,
      ...(c.chatWrapper ? { chatWrapper: c.chatWrapper() } : {}),
    });
  }, 120_000);
  afterAll(async () => {
    await llm?.dispose();
  });

  it('resolves a chat wrapper and says whether the model reasons', () => {
    expect(llm.chatReasoning.wrapperName).toMatch(c.wrapper);
    expect(llm.reasons).toBe(c.reasons);
    expect(llm.chatReasoning.switchable).toBe(c.switchable);
  });

  // A wrapper given by the caller is not the file's: only resolved wrappers are compared.
  if (!c.chatWrapper)
    it('models info resolves the same wrapper from the file without loading it', async () => {
      expect((await inspectGguf(await templatedLlamaPath(c.spec))).chat).toEqual(llm.status().chat);
    });

  it('polyhop doctor prints the chat wrapper and whether the model reasons', () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      printDoctor({
        versions: {},
        llama: { backend: 'cpu', gpu: false, devices: [] },
        electronBinary: { present: true },
        models: [],
        modelsDir: '/models',
        dataDir: { path: '/data', writable: true },
        generation: llm.status(),
        embedding: null,
        modelErrors: [],
        remoteHosts: [],
        ocrLanguages: [],
        storeOrigins: [],
      });
    } finally {
      log.mockRestore();
    }
    const line = lines.find((l) => l.includes('chat wrapper:'));
    expect(line).toContain(llm.chatReasoning.wrapperName);
    const how = !c.reasons
      ? 'does not reason'
      : c.switchable
        ? 'reasons; steps without reasoning switch it off'
        : 'always reasons';
    expect(line).toContain(how);
  });

  it('a step whose policy reasons: valid JSON after a thought segment', async () => {
    const { value, usage } = await llm.generateJson(prompt('qa/answer', 'Who wrote it?'), replySchema, {
      maxTokens: ANSWER_TOKENS,
      reasoningTokens: reasoningTokensFor('qa/answer', {}, REASONING_BUDGET),
    });
    expect(replySchema.safeParse(value).success).toBe(true);
    if (c.reasons) expect(usage.reasoningTokens).toBeGreaterThan(0);
    else expect(usage.reasoningTokens).toBe(0);
    expect(usage.completionTokens).toBeGreaterThan(usage.reasoningTokens ?? 0);
  });

  it('a step whose policy does not reason: valid JSON, no thought unless the template cannot switch it off', async () => {
    const asked = reasoningTokensFor('mder/map', {}, REASONING_BUDGET);
    expect(asked).toBe(0);
    const { value, usage } = await llm.generateJson(prompt('mder/map', 'List one fact.'), replySchema, {
      maxTokens: ANSWER_TOKENS,
      reasoningTokens: asked,
    });
    expect(replySchema.safeParse(value).success).toBe(true);
    if (c.reasons && !c.switchable) {
      expect(usage.reasoningTokens).toBeGreaterThan(0);
    } else {
      expect(usage.reasoningTokens).toBe(0);
      // No reasoning budget is added on top of the answer's.
      expect(usage.completionTokens).toBeLessThanOrEqual(ANSWER_TOKENS);
    }
  });

  it('free text: the thought stays out of the answer', async () => {
    const { text, usage } = await llm.generateText(prompt('models/try', 'Hello'), {
      maxTokens: ANSWER_TOKENS,
      reasoningTokens: REASONING_BUDGET,
    });
    expect(text).not.toMatch(/<think>|<\/think>|<\|channel\|>|<\|message\|>/);
    if (c.reasons) expect(usage.reasoningTokens).toBeGreaterThan(0);
    else expect(usage.reasoningTokens).toBe(0);
  });
});
