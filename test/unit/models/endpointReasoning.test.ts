import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { InlineThoughtSplitter } from '../../../src-main/engine/models/endpoints/replyReasoning.js';
import { LLM_CALL_DEFAULTS, type RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import {
  startFlavouredServer,
  type FlavouredServer,
  type FlavouredServerOptions,
} from '../../support/flavouredServer.js';

/**
 * A thinking model behind each server: the thought arrives beside the answer (`reasoning_content`,
 * `reasoning`) or inline in it, and is counted as reasoning, never as answer text; a step whose
 * policy gives no reasoning sends each server's own switch. See test/support/flavouredServer.ts
 * for what each server does, from its source.
 */
const THOUGHT = 'Penelope is the wife of Odysseus , the king of Ithaca ; the question asks for her .';
const PROMPT: RenderedPrompt = {
  name: 'qa/answer',
  version: '1',
  system: 'Answer in JSON.',
  user: 'Who was the wife of the king of Ithaca?',
  variables: {},
};
const schema = z.object({ answer: z.string() });
/** A catalog model's own chat template (`../shared/data/chat-templates/`, see its SOURCE.md). */
const template = (file: string): string =>
  readFileSync(join(import.meta.dirname, '../../../../shared/data/chat-templates', file), 'utf8');

let server: FlavouredServer | undefined;
let llm: OpenAiLlm | undefined;
afterEach(async () => {
  await llm?.dispose();
  await server?.close();
  llm = undefined;
  server = undefined;
});

async function connect(
  options: Omit<FlavouredServerOptions, 'model'>,
): Promise<{ server: FlavouredServer; llm: OpenAiLlm }> {
  server = await startFlavouredServer({
    model: 'qwen3-8b',
    thought: THOUGHT,
    answer: (b) => (b.response_format ? '{"answer":"Penelope"}' : 'Penelope.'),
    ...options,
  });
  llm = await OpenAiLlm.create(
    endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: server.baseUrl, model: 'qwen3-8b' }),
  );
  return { server, llm };
}

describe('the thought is read where each server puts it, and counted as reasoning', () => {
  it.each([
    [
      'llama-server --reasoning-format deepseek (reasoning_content)',
      { flavour: 'llama-server', reasoningFormat: 'deepseek' },
    ],
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

  it('a template that opens the thought in the prompt (QwQ) on a newer llama-server: the JSON its schema forced from the first token arrives as reasoning_content, and is the answer', async () => {
    const { llm, server } = await connect({
      flavour: 'llama-server',
      chatTemplate: template('Qwen-QwQ-32B.jinja'),
      opensThoughtInPrompt: true,
      schemaReplyAsReasoning: true,
    });
    const result = await llm.generateJson(PROMPT, schema);
    expect(server.chats[0]?.thought).toBe(false);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(result.usage.reasoningTokens).toBeUndefined();
    // Free text reasons as the template has it: the thought up to </think>, then the answer.
    const text = await llm.generateText(PROMPT);
    expect(text.text).toBe('Penelope.');
    expect(text.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
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

describe('llama-server under a JSON schema, as common/chat.cpp at 85c9a50 picks the handler by template', () => {
  const budgets = { maxTokens: 12, reasoningTokens: 64 };

  it("Qwen3-8B's template: the schema's grammar applies from the first token, so no thought; the switch follows the step's policy", async () => {
    const { llm, server } = await connect({ flavour: 'llama-server', chatTemplate: template('Qwen-Qwen3-0.6B.jinja') });
    const reasoned = await llm.generateJson(PROMPT, schema, budgets);
    expect(reasoned.value).toEqual({ answer: 'Penelope' });
    expect(reasoned.usage.reasoningTokens).toBeUndefined();
    expect(server.chats[0]?.thought).toBe(false);
    expect(server.chats[0]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(server.chats[0]?.body.max_tokens).toBe(76);
    const off = await llm.generateJson(PROMPT, schema, { ...budgets, reasoningTokens: 0 });
    expect(off.value).toEqual({ answer: 'Penelope' });
    expect(server.chats[1]?.body).toMatchObject({ chat_template_kwargs: { enable_thinking: false }, max_tokens: 12 });
  });

  it("gpt-oss's template: its handler's grammar lets the analysis channel come first; reasoning_content is read and counted, the final channel's JSON parsed", async () => {
    const { llm, server } = await connect({
      flavour: 'llama-server',
      chatTemplate: template('openai-gpt-oss-120b.jinja'),
    });
    const streamed: string[] = [];
    const result = await llm.generateJson(PROMPT, schema, { ...budgets, onTextChunk: (t) => streamed.push(t) });
    expect(server.chats[0]?.thought).toBe(true);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(streamed.join('')).toBe('{"answer":"Penelope"}');
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
    expect(server.chats[0]?.body.max_tokens).toBe(76);
  });

  it("gpt-oss's template, a step without reasoning: enable_thinking would do nothing, so it is sent reasoning_effort low and keeps a reasoning budget for the thought it still writes", async () => {
    const { llm, server } = await connect({
      flavour: 'llama-server',
      chatTemplate: template('openai-gpt-oss-120b.jinja'),
    });
    const result = await llm.generateJson(PROMPT, schema, { ...budgets, reasoningTokens: 0 });
    expect(server.chats[0]?.body.chat_template_kwargs).toEqual({ reasoning_effort: 'low' });
    expect(server.chats[0]?.body.max_tokens).toBe(12 + LLM_CALL_DEFAULTS.reasoningTokens);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });

  it("QwQ's template (the prompt opens the thought): the schema's handler sets no thinking_forced_open, so the JSON is content and no reasoning is counted", async () => {
    const { llm, server } = await connect({
      flavour: 'llama-server',
      chatTemplate: template('Qwen-QwQ-32B.jinja'),
      opensThoughtInPrompt: true,
    });
    const result = await llm.generateJson(PROMPT, schema, budgets);
    expect(server.chats[0]?.thought).toBe(false);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(result.usage.reasoningTokens).toBeUndefined();
    // QwQ has no switch: a step without reasoning sends none, and keeps a budget for the thought.
    const off = await llm.generateText(PROMPT, { ...budgets, reasoningTokens: 0 });
    expect(server.chats[1]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(server.chats[1]?.body.max_tokens).toBe(12 + LLM_CALL_DEFAULTS.reasoningTokens);
    expect(off.text).toBe('Penelope.');
    expect(off.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });
});

describe("vLLM: a step without reasoning is sent the switch the model's template reads (vLLM renders it by /tokenize)", () => {
  const budgets = { maxTokens: 12, reasoningTokens: 0 };

  it("Qwen3-8B's template reads enable_thinking: the empty thought is rendered, no reasoning budget", async () => {
    const { llm, server } = await connect({ flavour: 'vllm', chatTemplate: template('Qwen-Qwen3-0.6B.jinja') });
    const result = await llm.generateJson(PROMPT, schema, budgets);
    expect(server.chats[0]?.body).toMatchObject({
      chat_template_kwargs: { enable_thinking: false },
      max_completion_tokens: 12,
    });
    expect(server.chats[0]?.body).not.toHaveProperty('reasoning_effort');
    expect(server.chats[0]?.thought).toBe(false);
    expect(result.value).toEqual({ answer: 'Penelope' });
  });

  it("gpt-oss's template reads reasoning_effort, which vLLM takes as the request's own field: low, and the reasoning budget kept for the thought it still writes", async () => {
    const { llm, server } = await connect({ flavour: 'vllm', chatTemplate: template('openai-gpt-oss-120b.jinja') });
    const result = await llm.generateJson(PROMPT, schema, budgets);
    expect(server.chats[0]?.body.reasoning_effort).toBe('low');
    expect(server.chats[0]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(server.chats[0]?.body.max_completion_tokens).toBe(12 + LLM_CALL_DEFAULTS.reasoningTokens);
    expect(server.chats[0]?.thought).toBe(true);
    expect(result.value).toEqual({ answer: 'Penelope' });
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });

  it("QwQ's template opens the thought in the prompt and has no switch: none is sent, and the reasoning budget kept", async () => {
    const { llm, server } = await connect({
      flavour: 'vllm',
      chatTemplate: template('Qwen-QwQ-32B.jinja'),
      opensThoughtInPrompt: true,
    });
    const result = await llm.generateText(PROMPT, budgets);
    expect(server.chats[0]?.body).not.toHaveProperty('chat_template_kwargs');
    expect(server.chats[0]?.body).not.toHaveProperty('reasoning_effort');
    expect(server.chats[0]?.body.max_completion_tokens).toBe(12 + LLM_CALL_DEFAULTS.reasoningTokens);
    expect(result.text).toBe('Penelope.');
    expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
  });

  it("vLLM refuses a reasoning_effort it does not know (Ollama's 'none'), as its request schema does", async () => {
    const { server } = await connect({ flavour: 'vllm', chatTemplate: template('openai-gpt-oss-120b.jinja') });
    const refused = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen3-8b',
        messages: [{ role: 'user', content: 'Hi' }],
        reasoning_effort: 'none',
      }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/Input should be 'low', 'medium' or 'high'/);
  });
});

describe('whether a server model reasons is learnt before its first reply, where the server says', () => {
  // The first call's max_tokens: the answer budget (12), plus the reasoning budget (64) when the
  // model is known to reason. Learnt only from a reply, the first reply is cut in its thought.
  it.each([
    [
      "llama-server, Qwen3-8B's template in /props (<think>)",
      { flavour: 'llama-server', chatTemplate: template('Qwen-Qwen3-0.6B.jinja') },
      true,
    ],
    [
      "llama-server, gpt-oss's template in /props (analysis channel)",
      { flavour: 'llama-server', chatTemplate: template('openai-gpt-oss-120b.jinja') },
      true,
    ],
    [
      "llama-server, Qwen3-4B-Instruct-2507's template in /props (no thought)",
      { flavour: 'llama-server', chatTemplate: template('Qwen3-4B-Instruct-2507.jinja'), thought: null },
      false,
    ],
    [
      "Ollama, /api/show's capabilities list 'thinking' (Qwen3-8B's template)",
      { flavour: 'ollama', chatTemplate: template('Qwen-Qwen3-0.6B.jinja') },
      true,
    ],
    [
      "Ollama, no 'thinking' capability (Qwen3-4B-Instruct-2507's template)",
      { flavour: 'ollama', chatTemplate: template('Qwen3-4B-Instruct-2507.jinja'), thought: null },
      false,
    ],
  ] as const)('%s', async (_name, options, reasons) => {
    const { llm, server } = await connect(options);
    expect(llm.reasons).toBe(reasons);
    const result = await llm.generateText(PROMPT, { maxTokens: 12, reasoningTokens: 64 });
    expect(server.chats[0]?.body.max_tokens).toBe(reasons ? 76 : 12);
    expect(result.stopReason).toBe('eos');
    expect(result.text).toBe('Penelope.');
  });

  it('vLLM does not say (its reasoning parser is a launch flag no route reports): the first reply tells', async () => {
    const { llm } = await connect({ flavour: 'vllm', chatTemplate: template('Qwen-Qwen3-0.6B.jinja') });
    expect(llm.reasons).toBe(false);
    await llm.generateText(PROMPT, { maxTokens: 64, reasoningTokens: 64 });
    expect(llm.reasons).toBe(true);
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

  it("takes gpt-oss's analysis channel as the thought, cut over chunks, with or without the final channel's header", () => {
    // chat-parser.cpp at 05e5139 (`--reasoning-format none`): the analysis message with its header
    // and <|end|>, then the final message's text; the older parser left the final header in too.
    for (const [pieces, answer] of [
      [['<|chan', 'nel|>analysis<|mess', 'age|>weigh it<|e', 'nd|>{"a"', ':1}'], '{"a":1}'],
      [
        ['<|channel|>analysis<|message|>weigh it<|end|><|sta', 'rt|>assistant<|channel|>final<|mes', 'sage|>{"a":1}'],
        '{"a":1}',
      ],
      [
        [
          '<|channel|>analysis<|message|>weigh it<|end|><|start|>assistant<|channel|>final <|constrain|>json<|message|>{"a":1}',
        ],
        '{"a":1}',
      ],
    ] as const) {
      const splitter = new InlineThoughtSplitter();
      const streamed = pieces.map((p) => splitter.push(p)).join('');
      expect(streamed).toBe(answer);
      expect(splitter.finish()).toEqual({ thought: 'weigh it', answer });
    }
  });
});

describe("llama-server --reasoning-format none with gpt-oss's template: the analysis channel stays in content", () => {
  it.each([
    ['text', false],
    ['JSON under a schema', true],
  ] as const)('%s: the thought is kept out of the answer and counted', async (_name, json) => {
    const { llm } = await connect({
      flavour: 'llama-server',
      reasoningFormat: 'none',
      chatTemplate: template('openai-gpt-oss-120b.jinja'),
    });
    const streamed: string[] = [];
    const options = { maxTokens: 64, reasoningTokens: 64, onTextChunk: (t: string) => streamed.push(t) };
    if (json) {
      const result = await llm.generateJson(PROMPT, schema, options);
      expect(result.value).toEqual({ answer: 'Penelope' });
      expect(streamed.join('')).toBe('{"answer":"Penelope"}');
      expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
    } else {
      const result = await llm.generateText(PROMPT, options);
      expect(result.text).toBe('Penelope.');
      expect(streamed.join('')).toBe('Penelope.');
      expect(result.usage.reasoningTokens).toBe(llm.countTokens(THOUGHT));
    }
  });
});
