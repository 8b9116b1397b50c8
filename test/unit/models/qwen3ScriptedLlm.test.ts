import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { Qwen3ScriptedLlm } from '../../support/Qwen3ScriptedLlm.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';

/** The bench's model double: Qwen3's tokens, template, context and budgets, so benches count what a real run costs. */
const prompt = (user: string): RenderedPrompt => ({ name: 'mder/map', version: '1', system: 'You extract facts.', user, variables: { chunk: user } });
const schema = z.object({ text: z.string() });
const reply = (text: string) => new ScriptedLlm([{ prompt: 'mder/map', reply: () => ({ text }) }]);

describe('Qwen3ScriptedLlm', () => {
  it('counts the chat template around the prompt, and reasoning on top of the answer', async () => {
    const llm = new Qwen3ScriptedLlm(reply('Ithaca'), { reasoning: { steps: new Set(), budget: 0 } });
    const { usage } = await llm.generateJson(prompt('Odysseus was king of Ithaca.'), schema, { maxTokens: 64 });
    const bare = llm.countTokens('You extract facts.') + llm.countTokens('Odysseus was king of Ithaca.');
    // <|im_start|>system\n … <|im_end|>\n<|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n
    expect(usage.promptTokens).toBeGreaterThan(bare + 10);
    expect(usage.completionTokens).toBe(llm.countTokens('{"text":"Ithaca"}') + 1);

    const thinking = new Qwen3ScriptedLlm(reply('Ithaca'), { reasoning: { steps: 'all', budget: 200, used: 0.5 } });
    const thought = await thinking.generateJson(prompt('Odysseus was king of Ithaca.'), schema, { maxTokens: 64 });
    expect(thought.usage.reasoningTokens).toBe(100 + thinking.countTokens('<think>\n\n</think>\n\n'));
    expect(thought.usage.completionTokens).toBe(thought.usage.reasoningTokens! + usage.completionTokens);
  });

  it('cuts a reply over maxTokens and refuses a prompt over the context, with the tokens they cost', async () => {
    const long = new Qwen3ScriptedLlm(reply('word '.repeat(100)), { reasoning: { steps: new Set() } });
    await expect(long.generateJson(prompt('p'), schema, { maxTokens: 50 })).rejects.toMatchObject({ code: 'LLM_OUTPUT_INVALID' });
    expect(long.calls[0]).toMatchObject({ outcome: 'cut', completionTokens: 50 });

    const small = new Qwen3ScriptedLlm(reply('x'), { contextTokens: 64, reasoning: { steps: new Set() } });
    await expect(small.generateJson(prompt('word '.repeat(200)), schema)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(small.calls[0]).toMatchObject({ outcome: 'refused' });
  });
});
