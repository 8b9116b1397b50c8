import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { ScriptedLlm, type ScriptedLlmOptions } from '../../support/ScriptedLlm.js';

/** The model double of every unit test and bench: Qwen3's tokens, template, context and budgets, so tests see what a real run would. */
const prompt = (user: string): RenderedPrompt => ({
  name: 'mder/map',
  version: '1',
  system: 'You extract facts.',
  user,
  variables: { chunk: user },
});
const schema = z.object({ text: z.string() });
const reply = (text: string, options: ScriptedLlmOptions = {}) =>
  new ScriptedLlm([{ prompt: 'mder/map', reply: () => ({ text }) }], options);

describe('ScriptedLlm limits', () => {
  it('counts the chat template around the prompt, and reasoning on top of the answer', async () => {
    const llm = reply('Ithaca');
    const { usage } = await llm.generateJson(prompt('Odysseus was king of Ithaca.'), schema, { maxTokens: 64 });
    const bare = llm.countTokens('You extract facts.') + llm.countTokens('Odysseus was king of Ithaca.');
    // <|im_start|>system\n … <|im_end|>\n<|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n
    expect(usage.promptTokens).toBeGreaterThan(bare + 10);
    expect(usage.completionTokens).toBe(llm.countTokens('{"text":"Ithaca"}') + 1);
    expect(usage.reasoningTokens).toBeUndefined();

    const thinking = reply('Ithaca', { reasoning: { steps: 'all', budget: 200, used: 0.5 } });
    const thought = await thinking.generateJson(prompt('Odysseus was king of Ithaca.'), schema, { maxTokens: 64 });
    expect(thought.usage.reasoningTokens).toBe(100 + thinking.countTokens('<think>\n\n</think>\n\n'));
    expect(thought.usage.completionTokens).toBe(thought.usage.reasoningTokens! + usage.completionTokens);
  });

  it('cuts a JSON reply at maxTokens where generation stops: the cut text fails to parse, with the tokens it cost', async () => {
    const long = reply('word '.repeat(100));
    const error = await long.generateJson(prompt('p'), schema, { maxTokens: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LLM_OUTPUT_INVALID', details: { usage: { completionTokens: 50 } } });
    const raw = (error as { details: { raw: string } }).details.raw;
    expect(long.countTokens(raw)).toBe(50);
    expect(`{"text":"${'word '.repeat(100)}"}`.startsWith(raw)).toBe(true);
    expect(long.calls[0]).toMatchObject({ outcome: 'cut', completionTokens: 50 });
  });

  it('cuts a text reply at maxTokens with stopReason maxTokens, and the default budget applies when a call sets none', async () => {
    const llm = new ScriptedLlm([{ prompt: 'mder/map', reply: () => 'word '.repeat(2000) }]);
    const result = await llm.generateText(prompt('p'));
    expect(result.stopReason).toBe('maxTokens');
    expect(llm.countTokens(result.text)).toBe(1024);
    const short = await llm.generateText(prompt('p'), { maxTokens: 10 });
    expect(short).toMatchObject({ stopReason: 'maxTokens', usage: { completionTokens: 10 } });
  });

  it('refuses a prompt over the context with LlamaCppLlm’s error, and the answer fits what the context leaves', async () => {
    const small = reply('x', { contextTokens: 64 });
    await expect(small.generateJson(prompt('word '.repeat(200)), schema)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/^mder\/map: prompt of \d+ tokens does not fit the 64-token context$/),
    });
    expect(small.calls[0]).toMatchObject({ outcome: 'refused' });

    const tight = reply('word '.repeat(100), { contextTokens: 80 });
    const error = await tight.generateJson(prompt('p'), schema).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LLM_OUTPUT_INVALID' });
    expect(tight.calls[0]!.promptTokens + tight.calls[0]!.completionTokens).toBe(80);
  });

  it('a JSON call that reasons thinks first, then answers on its own maxTokens (LlamaCppLlm’s two phases); a text call shares one budget', async () => {
    const answer = 'word '.repeat(40);
    const options: ScriptedLlmOptions = { reasoning: { steps: 'all', budget: 100 } };
    const json = await reply(answer, options).generateJson(prompt('p'), schema, { maxTokens: 60 });
    expect(json.value.text).toBe(answer);
    const text = new ScriptedLlm([{ prompt: 'mder/map', reply: () => answer }], options);
    const out = await text.generateText(prompt('p'), { maxTokens: 60 });
    // generationBudget: maxTokens 60 + thought 100 in one generation; the thought spends its 100 and the markers.
    expect(out.stopReason).toBe('eos');
    expect(out.usage.reasoningTokens).toBe(100 + text.countTokens('<think>\n\n</think>\n\n'));
  });
});
