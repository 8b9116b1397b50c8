import { afterEach, describe, expect, it } from 'vitest';
import type { PolyhopError } from '../../../src-main/engine/base/errors.js';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { isEndpointFailure } from '../../../src-main/engine/models/endpoints/endpointErrors.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { startModelListServer } from '../../support/modelListServer.js';
import { startFlavouredServer, type FlavouredServer, type ServerFlavour } from '../../support/flavouredServer.js';

/**
 * vLLM counts prompt + max_tokens against max_model_len and refuses what does not fit
 * (test/support/flavouredServer.ts, from vllm/renderers/params.py): budgets are fitted to what the
 * prompt leaves of a known context, and a prompt that leaves no room is "prompt too long"
 * (BAD_INPUT, so batched steps split) whichever wording the server uses.
 */
const prompt = (user: string): RenderedPrompt => ({
  name: 'mder/map',
  version: '1',
  system: 'Extract triples.',
  user,
  variables: {},
});
const words = (n: number, w: string) => Array.from({ length: n }, () => w).join(' ');

let server: FlavouredServer | undefined;
let llm: OpenAiLlm | undefined;
afterEach(async () => {
  await llm?.dispose();
  await server?.close();
  llm = undefined;
  server = undefined;
});

async function connect(
  flavour: ServerFlavour,
  contextTokens: number,
): Promise<{ server: FlavouredServer; llm: OpenAiLlm }> {
  server = await startFlavouredServer({ flavour, model: 'qwen2.5-7b', contextTokens, answer: () => 'Some triples.' });
  llm = await OpenAiLlm.create(
    endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: server.baseUrl, model: 'qwen2.5-7b' }),
  );
  return { server, llm };
}

describe('max_tokens fitted to the context', () => {
  it('vLLM --max-model-len 1024: a 2,048-token budget is cut to what the prompt leaves, and the call is answered', async () => {
    const { server, llm } = await connect('vllm', 1024);
    const result = await llm.generateText(prompt(words(300, 'Ithaca')), { maxTokens: 2048 });
    expect(result.text).toBe('Some triples.');
    expect(server.refusals).toBe(0);
    const sent = Number(server.chats[0]?.body.max_completion_tokens);
    expect(sent).toBeGreaterThan(600);
    expect(sent).toBeLessThanOrEqual(1024 - 300);
  });

  it("vLLM: near the context's end the prompt is counted by the server's /tokenize, not the estimate", async () => {
    // Words of one letter: about 2 characters a token where the calibration measured 4, so the
    // estimate counts half the prompt.
    const { server, llm } = await connect('vllm', 1024);
    const result = await llm.generateText(prompt(words(480, 'a')), { maxTokens: 2048 });
    expect(result.text).toBe('Some triples.');
    expect(server.refusals).toBe(0);
    expect(Number(server.chats[0]?.body.max_completion_tokens)).toBe(1024 - (3 + 480 + 16)); // its tokens and the template's allowance (CHAT_TEMPLATE_TOKENS)
  });

  it('vLLM: when the estimate was short and vLLM refuses, the call is asked again with the room its refusal states', async () => {
    const { server, llm } = await connect('vllm', 1024);
    const result = await llm.generateText(prompt(words(900, 'a')), { maxTokens: 256 });
    expect(result.text).toBe('Some triples.');
    expect(server.refusals).toBe(1);
    expect(server.chats.map((c) => c.body.max_completion_tokens)).toEqual([1024 - (3 + 900 + 8)]);
  });

  it.each(['vllm', 'llama-server'] as const)(
    '%s: a prompt that leaves no room is BAD_INPUT (prompt too long), before any request',
    async (flavour) => {
      const { server, llm } = await connect(flavour, 512);
      const error = (await llm.generateText(prompt(words(600, 'Ithaca'))).catch((e: unknown) => e)) as PolyhopError;
      expect(error.code).toBe('BAD_INPUT');
      expect(error.message).toMatch(/leaves 0 of endpoint gen's 512-token context/);
      expect(server.refusals).toBe(0);
    },
  );
});

// vLLM's "You passed N input tokens … context length is only L" was recognised before.
describe("the servers' overflow wordings are 'prompt too long' (BAD_INPUT), not a generic failure", () => {
  it.each([
    [
      'vLLM, a budget past max_model_len (params.py __post_init__)',
      {
        message: 'max_tokens=2048 cannot be greater than max_model_len=1024. Please request fewer output tokens.',
        type: 'BadRequestError',
        code: 400,
      },
    ],
    [
      // The body test/support/flavouredServer.ts models (ERROR_TYPE_EXCEED_CONTEXT_SIZE): its code
      // is a number, so only the wording tells it apart from any other 400.
      'llama-server, a prompt past the slot (exceed_context_size_error)',
      {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 600,
        n_ctx: 512,
      },
    ],
  ])('%s', async (_name, error) => {
    const list = await startModelListServer({
      models: ['m'],
      chatRefusal: { status: 400, body: { error } },
    });
    try {
      const model = await OpenAiLlm.create(
        endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: list.baseUrl, model: 'm' }),
      );
      const error = (await model.generateText(prompt('x'), { maxTokens: 8 }).catch((e: unknown) => e)) as PolyhopError;
      expect(error.code).toBe('BAD_INPUT');
      expect(isEndpointFailure(error)).toBe(false);
    } finally {
      await list.close();
    }
  });
});
