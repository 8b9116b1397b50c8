import { afterEach, describe, expect, it, vi } from 'vitest';
import { PolyhopError } from '../../../src-main/engine/base/errors.js';
import type { RenderedPrompt } from '../../../src-main/engine/models/Llm.js';
import { endpointConfigSchema, type EndpointConfig } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import type { EndpointNotice } from '../../../src-main/engine/models/endpoints/EndpointPool.js';
import { endpointClient } from '../../../src-main/engine/models/endpoints/endpointClient.js';
import { isEndpointFailure } from '../../../src-main/engine/models/endpoints/endpointErrors.js';
import { OpenAiEmbedder } from '../../../src-main/engine/models/endpoints/OpenAiEmbedder.js';
import { PooledEmbedder } from '../../../src-main/engine/models/endpoints/PooledEmbedder.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import { PooledLlm, type PooledLlmOptions } from '../../../src-main/engine/models/endpoints/PooledLlm.js';
import { probeEndpoint } from '../../../src-main/engine/models/endpoints/probeEndpoint.js';
import { measureTokenEstimate } from '../../../src-main/engine/models/endpoints/serverFacts.js';
import {
  startFlavouredServer,
  type FlavouredServer,
  type FlavouredServerOptions,
} from '../../support/flavouredServer.js';
import { refusedPort } from '../../support/modelListServer.js';

/**
 * Inference servers as people run them, at their edges (issue 24 points 4, 5, 7, 8): a key that
 * only the model list does not check, a server that holds calls in its queue, answers busy or is
 * still loading, and servers that say nothing of their context. Each server's behaviour is modelled
 * from its source in test/support/flavouredServer.ts.
 */
const KEY = 'sk-edge-2c4e6a8b0d1f3e5a7c9b';
const PROMPT: RenderedPrompt = {
  name: 'test/edge',
  version: '1',
  system: 'Answer briefly.',
  user: 'Who waited for Odysseus?',
  variables: {},
};

const servers: FlavouredServer[] = [];
const pools: { dispose(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.dispose()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: Omit<FlavouredServerOptions, 'model'>): Promise<FlavouredServer> {
  const server = await startFlavouredServer({ model: 'qwen3-8b', ...options });
  servers.push(server);
  return server;
}
const config = (server: { baseUrl: string }, extra: Partial<EndpointConfig> = {}): EndpointConfig =>
  endpointConfigSchema.parse({ id: 'gpu1', role: 'generation', baseUrl: server.baseUrl, model: 'qwen3-8b', ...extra });
async function pool(configs: EndpointConfig[], options: PooledLlmOptions = {}): Promise<PooledLlm> {
  const llm = await PooledLlm.create(configs, { healthIntervalMs: 60_000, ...options });
  pools.push(llm);
  return llm;
}

describe('models endpoint test makes one authenticated call per role', () => {
  it('a wrong key fails on llama-server, which serves /v1/models without one', async () => {
    const server = await serve({ flavour: 'llama-server', apiKey: KEY });
    const wrong = await probeEndpoint(config(server, { apiKey: `${KEY}-old` }));
    // The model list answered (it is public there); the completion did not.
    expect(wrong).toMatchObject({
      ok: false,
      servedModels: ['qwen3-8b'],
      modelServed: true,
      roleCall: { role: 'generation', ok: false },
    });
    expect(wrong.error).toMatch(/401.*Invalid API Key/);
    expect(wrong.error).not.toContain(KEY);
    const right = await probeEndpoint(config(server, { apiKey: KEY }));
    expect(right).toMatchObject({
      ok: true,
      error: null,
      roleCall: { ok: true, what: 'a one-token completion answered' },
    });
    expect(server.chats.at(-1)?.body).toMatchObject({ max_tokens: 1 });
  });

  it('checks the role: an embedding endpoint on a server that embeds nothing fails; one that embeds gives its dimension', async () => {
    const chatOnly = await serve({ flavour: 'llama-server' });
    const wrongRole = await probeEndpoint(config(chatOnly, { role: 'embedding' }));
    expect(wrongRole).toMatchObject({ ok: false, roleCall: { role: 'embedding', ok: false } });
    const embeds = await serve({ flavour: 'vllm', embeddings: true });
    expect(await probeEndpoint(config(embeds, { role: 'embedding' }))).toMatchObject({
      ok: true,
      roleCall: { ok: true, what: 'a one-input embedding answered with 64 dimensions', dimension: 64 },
    });
  });

  it("connecting with a wrong key fails on /props' 401 instead of taking the server for another kind", async () => {
    const server = await serve({ flavour: 'llama-server', apiKey: KEY });
    const error = (await OpenAiLlm.create(config(server, { apiKey: 'sk-wrong' })).catch(
      (e: unknown) => e,
    )) as PolyhopError;
    expect(error).toBeInstanceOf(PolyhopError);
    expect(error.message).toMatch(/reading \/props: .*HTTP 401.*Invalid API Key/);
    const llm = await OpenAiLlm.create(config(server, { apiKey: KEY }));
    expect(llm.serverKind).toBe('llama-server');
  });

  it("a wrong key on llama-server's /tokenize is refused, not taken for a server without a tokenizer", async () => {
    // /props answers first at connect time, so its 401 hides this one there: ask /tokenize alone.
    const server = await serve({ flavour: 'llama-server', apiKey: KEY });
    const wrong = config(server, { apiKey: 'sk-wrong' });
    const error = (await measureTokenEstimate(endpointClient(wrong), wrong).catch((e: unknown) => e)) as PolyhopError;
    expect(error).toBeInstanceOf(PolyhopError);
    expect(error.message).toMatch(/tokenizing: .*HTTP 401.*Invalid API Key/);
    const right = config(server, { apiKey: KEY });
    expect(await measureTokenEstimate(endpointClient(right), right)).toBeDefined();
  });
});

describe('a slow or busy server is waited for, not dropped', () => {
  // A stream silent past stallMs after its first chunk is still a stall (endpointPool.test.ts, 'stall').
  it.each(['llama-server', 'vllm'] as const)('%s: waiting for the first token is not a stall', async (flavour) => {
    const server = await serve({ flavour, firstByteDelayMs: 1500 });
    const llm = await pool([config(server)], { stallMs: 500, allDownWaitMs: 1000 });
    await expect(llm.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
    expect(llm.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });

  it('backs off on 429 and 503 busy, honouring Retry-After, says so, and keeps the endpoint in', async () => {
    const server = await serve({ flavour: 'ollama' });
    const notices: EndpointNotice[] = [];
    const llm = await pool([config(server)], { onNotice: (n) => notices.push(n) });
    server.busy(1, { status: 429, retryAfter: '1' });
    server.busy(1, { status: 503 });
    server.busy(1, { status: 429, retryAfter: new Date(Date.now() + 1000).toUTCString() });
    await expect(llm.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
    expect(notices.map((n) => n.message)).toEqual([
      expect.stringMatching(/gpu1 is busy .*HTTP 429.*asking again in 1 s as it asked \(Retry-After\)/),
      expect.stringMatching(/gpu1 is busy .*HTTP 503.*server busy, please try again.*asking again in 2 s$/),
      expect.stringMatching(/Retry-After/),
    ]);
    expect(llm.status()[0]).toMatchObject({ health: 'up', failures: 0, notice: expect.stringMatching(/busy/) });
  });

  // llama-server answers 503 in more wordings than "Loading model" (and a proxy in front says
  // "Service Unavailable"): each is the server being unavailable for now, not dead.
  it.each(['generation', 'embedding'] as const)(
    '%s: a 503 in no busy wording is waited out, not taken for a dead server',
    async (role) => {
      const server = await serve({ flavour: 'llama-server', embeddings: true });
      const notices: string[] = [];
      const options = { allDownWaitMs: 1000, onNotice: (n: EndpointNotice) => notices.push(n.message) };
      const endpoint = config(server, { role });
      const model =
        role === 'generation'
          ? await pool([endpoint], options)
          : await PooledEmbedder.create([endpoint], { healthIntervalMs: 60_000, ...options });
      pools.push(model);
      server.busy(1, { status: 503, message: 'Service Unavailable' });
      server.busy(1, { status: 503, message: 'Service Unavailable', retryAfter: '1' });
      if (model instanceof PooledLlm)
        await expect(model.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
      else expect(await model.embed(['Penelope waited.'])).toHaveLength(1);
      expect(notices).toEqual([
        expect.stringMatching(/gpu1 is busy .*HTTP 503.*Service Unavailable.*asking again in 1 s$/),
        expect.stringMatching(/gpu1 is busy .*HTTP 503.*asking again in 1 s as it asked \(Retry-After\)/),
      ]);
      expect(model.status()[0]).toMatchObject({ health: 'up', failures: 0 });
    },
  );

  it('gives up after busyWaitMs in all, as a busy failure, the endpoint still in', async () => {
    const server = await serve({ flavour: 'ollama' });
    // Pauses of 1 s, then 2 s; the next (4 s) would pass 3.5 s in all.
    const llm = await pool([config(server)], { busyWaitMs: 3500 });
    server.busy(10, { status: 503 });
    const error = (await llm.generateText(PROMPT, { maxTokens: 8 }).catch((e: unknown) => e)) as PolyhopError;
    expect(error.message).toMatch(/gpu1 stayed busy \(waited 3 s in all\)/);
    expect(llm.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });

  it('caps calls in flight to the slots llama-server reports (its default 4), whatever the concurrency says', async () => {
    const two = await serve({ flavour: 'llama-server', slots: 2 });
    const capped = await pool([config(two, { concurrency: 8 })]);
    expect(capped.parallelism).toBe(2);
    expect(capped.status()[0]).toMatchObject({ concurrency: 8, slots: 2 });
    const byDefault = await serve({ flavour: 'llama-server' });
    expect((await pool([config(byDefault, { concurrency: 8 })])).parallelism).toBe(4);
    // Ollama and vLLM do not say: the configured concurrency stands.
    const vllm = await serve({ flavour: 'vllm' });
    expect((await pool([config(vllm, { concurrency: 8 })])).parallelism).toBe(8);
  });
});

describe('an embedding waits for the first byte as long as a generation does', () => {
  it('a request queued behind others on a 1-slot server is not a stall and succeeds', async () => {
    // Each request holds the one slot 700 ms; the stall time is 300 ms.
    const server = await serve({ flavour: 'llama-server', embeddings: true, slots: 1, workMs: 700 });
    const endpoint = config(server, { role: 'embedding' });
    const embedder = await PooledEmbedder.create([endpoint], {
      healthIntervalMs: 60_000,
      allDownWaitMs: 1000,
      stallMs: 300,
    });
    pools.push(embedder);
    // Two other clients take the slot and the queue first.
    const others = [1, 2].map(() =>
      fetch(`${server.baseUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwen3-8b', input: ['Ithaca'] }),
      }),
    );
    // The probe at connect time, then the two others, are in before this one.
    await vi.waitFor(() => expect(server.requests.filter((r) => r.startsWith('POST /v1/embeddings'))).toHaveLength(3));
    const vectors = await embedder.embed(['Penelope waited.', 'Odysseus sailed.']);
    expect(vectors).toHaveLength(2);
    expect((await Promise.all(others)).map((r) => r.status)).toEqual([200, 200]);
    expect(embedder.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });

  it('a reply that starts and then goes quiet past stallMs is a stall (an endpoint failure)', async () => {
    const server = await serve({ flavour: 'llama-server', embeddings: true, embeddingBodyStallMs: 3000 });
    const error = await OpenAiEmbedder.create(config(server, { role: 'embedding' }), { stallMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(isEndpointFailure(error)).toBe(true);
    expect((error as PolyhopError).message).toMatch(/no data for 300 ms after the reply started/);
  });
});

describe('a job started while the server loads waits for it, and says so', () => {
  it("llama-server's 503 Loading model", async () => {
    const server = await serve({ flavour: 'llama-server' });
    server.loading();
    const notices: string[] = [];
    const creating = pool([config(server)], { allDownWaitMs: 20_000, onNotice: (n) => notices.push(n.message) });
    setTimeout(() => server.ready(), 1500);
    const llm = await creating;
    expect(notices[0]).toMatch(
      /No generation endpoint answers yet \(gpu1: .*HTTP 503.*Loading model\); waiting up to \d+ s more/,
    );
    await expect(llm.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
  });

  it('vLLM refusing connections until its API server listens', async () => {
    const port = await refusedPort();
    const notices: string[] = [];
    const creating = pool([config({ baseUrl: `http://127.0.0.1:${port}/v1` })], {
      allDownWaitMs: 20_000,
      onNotice: (n) => notices.push(n.message),
    });
    setTimeout(() => void serve({ flavour: 'vllm', port }), 1500);
    const llm = await creating;
    expect(notices.length).toBeGreaterThan(0);
    await expect(llm.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
  });

  it('a server that never comes up fails after allDownWaitMs, naming it', async () => {
    const port = await refusedPort();
    const error = (await pool([config({ baseUrl: `http://127.0.0.1:${port}/v1` })], { allDownWaitMs: 1200 }).catch(
      (e: unknown) => e,
    )) as PolyhopError;
    expect(error.message).toMatch(/No generation endpoint answers: gpu1/);
  });
});

describe('servers that report no context size', () => {
  const long: RenderedPrompt = {
    ...PROMPT,
    user: `${'Penelope waited for Odysseus in Ithaca . '.repeat(120)}Who waited?`,
  };

  it('Ollama cutting a prompt to its num_ctx is caught from prompt_tokens, and its context learned', async () => {
    const server = await serve({ flavour: 'ollama', numCtx: 256 });
    const llm = await pool([config(server)]);
    expect(llm.contextTokens).toBeUndefined();
    await expect(llm.generateText(PROMPT, { maxTokens: 8 })).resolves.toMatchObject({ text: 'An answer.' });
    const error = (await llm.generateText(long, { maxTokens: 8 }).catch((e: unknown) => e)) as PolyhopError;
    expect(server.truncatedInputs).toBe(1);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(
      /read 256 prompt tokens of about \d+: the server cut the prompt .*OLLAMA_CONTEXT_LENGTH/,
    );
    expect(llm.contextTokens).toBe(256);
    expect(llm.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });

  it("LM Studio's refusal is a context refusal (BAD_INPUT), not the server failing", async () => {
    const server = await serve({ flavour: 'lmstudio', contextTokens: 300 });
    const llm = await pool([config(server)]);
    const error = (await llm.generateText(long, { maxTokens: 8 }).catch((e: unknown) => e)) as PolyhopError;
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(/context length of only 300 tokens/);
    expect(error.details.windowTokens).toBe(300);
    expect(llm.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });
});

describe('each server gets the budget field it reads', () => {
  it('vLLM max_completion_tokens (max_tokens is deprecated there), the others max_tokens', async () => {
    for (const flavour of ['vllm', 'llama-server', 'ollama'] as const) {
      const server = await serve({ flavour });
      await (await OpenAiLlm.create(config(server))).generateText(PROMPT, { maxTokens: 8 });
      const body = server.chats[0]?.body ?? {};
      expect([flavour, 'max_completion_tokens' in body, 'max_tokens' in body]).toEqual([
        flavour,
        flavour === 'vllm',
        flavour !== 'vllm',
      ]);
    }
  });
});
