import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CachingLlm } from '../../../src-main/engine/models/CachingLlm.js';
import { MemoryCallCacheStore } from '../../../src-main/engine/models/CallCache.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { PooledLlm } from '../../../src-main/engine/models/endpoints/PooledLlm.js';
import { largestContextNeed } from '../../../src-main/engine/qa/contextNeed.js';
import { evidenceBudget, PROMPT_ROOM_TOKENS, resolveQaSettings } from '../../../src-main/engine/qa/settings.js';
import { startFlavouredServer, type FlavouredServer } from '../../support/flavouredServer.js';

/**
 * A thinking model on an inference server: once a reply shows it reasons, the engine's Llm (the
 * call cache around the pool, as QaRun sees it) says so, so the evidence budget keeps the
 * reasoning budget out of the server's context as it does for a local thinking model; and each
 * endpoint's status says whether its reported context (vLLM `max_model_len`, llama-server's
 * per-slot `n_ctx`) holds the evidence the strategies need.
 */
const PROMPT: RenderedPrompt = {
  name: 'qa/answer',
  version: '1',
  system: 'Answer in JSON.',
  user: 'Who was the wife of Odysseus?',
  variables: {},
};
const schema = z.object({ answer: z.string() });
const settings = resolveQaSettings();

let server: FlavouredServer | undefined;
let pool: PooledLlm | undefined;
afterEach(async () => {
  await pool?.dispose();
  await server?.close();
  pool = undefined;
  server = undefined;
});

async function connect(
  flavour: 'vllm' | 'llama-server',
  thought: string | null,
  contextTokens: number,
): Promise<{ llm: CachingLlm; pool: PooledLlm }> {
  server = await startFlavouredServer({
    flavour,
    model: 'qwen3-8b',
    thought,
    contextTokens,
    answer: () => '{"answer":"Penelope"}',
  });
  pool = await PooledLlm.create(
    [
      endpointConfigSchema.parse({
        id: 'gpu1',
        role: 'generation',
        baseUrl: server.baseUrl,
        model: 'qwen3-8b',
        concurrency: 4,
      }),
    ],
    {
      contextNeed: (reasons) => largestContextNeed(settings, reasons),
    },
  );
  return { llm: new CachingLlm(pool, { store: new MemoryCallCacheStore() }), pool };
}

describe('evidence budget on an inference server', () => {
  it('a server model seen to reason gets the reasoning budget kept out of the evidence, as a local one', async () => {
    const { llm } = await connect('vllm', 'Penelope married Odysseus , king of Ithaca .', 16_384);
    expect(llm.contextTokens).toBe(16_384);
    const before = evidenceBudget(settings, llm.contextTokens, llm.reasons === true);
    await llm.generateJson(PROMPT, schema, { reasoningTokens: 256 });
    expect(llm.reasons).toBe(true);
    const after = evidenceBudget(settings, llm.contextTokens, llm.reasons === true);
    expect(before - after).toBe(settings.shared.reasoningMaxTokens);
  });

  it("llama-server's template says the model reasons: the first question's evidence budget already keeps the reasoning budget out", async () => {
    const { llm } = await connect('llama-server', 'Penelope married Odysseus , king of Ithaca .', 16_384);
    expect(llm.reasons).toBe(true);
    expect(evidenceBudget(settings, llm.contextTokens, llm.reasons === true)).toBe(
      16_384 -
        Math.max(settings.shared.answerMaxTokens, settings.shared.stepMaxTokens) -
        PROMPT_ROOM_TOKENS -
        settings.shared.reasoningMaxTokens,
    );
  });

  it('a model that does not reason keeps the whole context for evidence', async () => {
    const { llm } = await connect('vllm', null, 16_384);
    await llm.generateJson(PROMPT, schema, { reasoningTokens: 256 });
    expect(llm.reasons).toBe(false);
    expect(evidenceBudget(settings, llm.contextTokens, llm.reasons === true)).toBe(
      16_384 - Math.max(settings.shared.answerMaxTokens, settings.shared.stepMaxTokens) - PROMPT_ROOM_TOKENS,
    );
  });

  it("each endpoint's status says whether its reported context holds the strategies' evidence, and what to start it with", async () => {
    const need = largestContextNeed(settings, false);
    const small = await connect('llama-server', null, 4096);
    const line = small.pool.status()[0]?.context;
    expect(line).toContain('4,096 tokens a call as the server reports it');
    expect(line).toContain(`less than the ${need.toLocaleString('en-US')}`);
    expect(line).toContain(`-c ${(need * 4).toLocaleString('en-US')} for 4 slots`);
    await pool?.dispose();
    await server?.close();
    const large = await connect('vllm', null, 2 * need);
    expect(large.pool.status()[0]?.context).toContain(
      `holds the ${need.toLocaleString('en-US')} the strategies' evidence needs`,
    );
  });
});
