import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { InlineThoughtSplitter } from '../../../src-main/engine/models/endpoints/replyReasoning.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { startFlavouredServer, type FlavouredServer, type FlavouredServerOptions } from '../../support/flavouredServer.js';

/**
 * A thinking model behind each server: the thought arrives beside the answer (`reasoning_content`,
 * `reasoning`) or inline in it, and is counted as reasoning, never as answer text; a step whose
 * policy gives no reasoning sends each server's own switch. See test/support/flavouredServer.ts
 * for what each server does, from its source.
 */
const THOUGHT = 'Penelope is the wife of Odysseus , the king of Ithaca ; the question asks for her .';
const PROMPT: RenderedPrompt = { name: 'qa/answer', version: '1', system: 'Answer in JSON.', user: 'Who was the wife of the king of Ithaca?', variables: {} };
const schema = z.object({ answer: z.string() });

let server: FlavouredServer | undefined;
let llm: OpenAiLlm | undefined;
afterEach(async () => {
  await llm?.dispose();
  await server?.close();
  llm = undefined;
  server = undefined;
});

async function connect(options: Omit<FlavouredServerOptions, 'model'>): Promise<{ server: FlavouredServer; llm: OpenAiLlm }> {
  server = await startFlavouredServer({ model: 'qwen3-8b', thought: THOUGHT, answer: (b) => (b.response_format ? '{"answer":"Penelope"}' : 'Penelope.'), ...options });
  llm = await OpenAiLlm.create(endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: server.baseUrl, model: 'qwen3-8b' }));
  return { server, llm };
}

describe('the thought is read where each server puts it, and counted as reasoning', () => {
  it.each([
    ['llama-server --reasoning-format deepseek (reasoning_content)', { flavour: 'llama-server', reasoningFormat: 'deepseek' }],
    ['llama-server --reasoning-format none (inline <think>)', { flavour: 'llama-server', reasoningFormat: 'none' }],
    ['vLLM with a reasoning parser (reasoning)', { flavour: 'vllm' }],
    ['Ollama (reasoning)', { flavour: 'ollama' }],
  ] as const)('%s', async (_name, flavour) => {
    const { llm } = await connect(flavour);
    const streamed: string[] = [];
    const result = await llm.generateText(PROMPT, { onTextChunk: (t) => streamed.push(t) });
    expect(result.text).toBe('Penelope.');
    expect(streamed.join('')).toBe('Penelope.');
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
    expect(result.stopReason).toBe('eos');
  });

  it('a JSON answer after an inline thought is valid JSON (a server that neither parses nor constrains the thought)', async () => {
    const { llm } = await connect({ flavour: 'lmstudio' });
    const result = await llm.generateJson(PROMPT, schema);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });

  it('vLLM reasons before the schema applies; its thought gets the reasoning budget on top of the answer budget', async () => {
    const { llm, server } = await connect({ flavour: 'vllm' });
    // The answer budget alone (12 tokens) is less than the thought: the first reply is cut in its
    // thought and fails; once the model is seen to reason, calls ask for both budgets.
    const result = await llm.generateJson(PROMPT, schema, { maxTokens: 12, reasoningTokens: 64 });
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(server.chats.map((c) => c.body.max_completion_tokens)).toEqual([12, 76]);
    const again = await llm.generateJson(PROMPT, schema, { maxTokens: 12, reasoningTokens: 64 });
    expect(again.value).toEqual({ answer: 'Penelope' });
    expect(server.chats.at(-1)?.body.max_completion_tokens).toBe(76);
  });
});

describe("a step without reasoning sends the server's own switch", () => {
  it.each([
    ['llama-server', { chat_template_kwargs: { enable_thinking: false } }],
    ['vllm', { chat_template_kwargs: { enable_thinking: false } }],
    ['ollama', { reasoning_effort: 'none' }],
  ] as const)('%s', async (flavour, fields) => {
    const { llm, server } = await connect({ flavour });
    const result = await llm.generateText(PROMPT, { reasoningTokens: 0 });
    expect(server.chats[0]?.body).toMatchObject(fields);
    expect(server.chats[0]?.thought).toBe(false);
    expect(result.text).toBe('Penelope.');
    expect(result.usage.reasoningTokens).toBeUndefined();
  });

  it('LM Studio gets no switch (none is known), so its model still reasons; the thought is still kept out of the answer', async () => {
    const { llm, server } = await connect({ flavour: 'lmstudio' });
    const result = await llm.generateText(PROMPT, { reasoningTokens: 0 });
    expect(server.chats[0]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(server.chats[0]?.body).not.toHaveProperty('reasoning_effort');
    expect(result.text).toBe('Penelope.');
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });
});

describe('InlineThoughtSplitter', () => {
  it('holds a tag cut over chunks, and takes a thought the prompt opened (a stray </think>)', () => {
    const a = new InlineThoughtSplitter();
    const out = ['  <thi', 'nk>wei', 'gh it</th', 'ink>\n\n{"a"', ':1}'].map((p) => a.push(p)).join('');
    expect(out).toBe('{"a":1}');
    expect(a.finish()).toEqual({ thought: 'weigh it', answer: '{"a":1}' });
    const b = new InlineThoughtSplitter();
    ['opened by the prompt', '</think>', ' {"a":2}'].forEach((p) => b.push(p));
    expect(b.finish()).toEqual({ thought: 'opened by the prompt', answer: '{"a":2}' });
    const c = new InlineThoughtSplitter();
    expect(['<', 'b>bold</b>'].map((p) => c.push(p)).join('')).toBe('<b>bold</b>');
  });
});
