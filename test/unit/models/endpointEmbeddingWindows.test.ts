import { afterEach, describe, expect, it } from 'vitest';
import { cosine } from '../../../src-main/engine/models/Embedder.js';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiEmbedder } from '../../../src-main/engine/models/endpoints/OpenAiEmbedder.js';
import { PooledEmbedder } from '../../../src-main/engine/models/endpoints/PooledEmbedder.js';
import {
  startFlavouredServer,
  toyTokens,
  type FlavouredServer,
  type FlavouredServerOptions,
} from '../../support/flavouredServer.js';

/**
 * The README's embedding set-up (a 512-token e5 behind a server) on passages longer than the
 * window: each server's own answer to an over-window input (llama-server HTTP 500 past its
 * physical batch, vLLM 400 past max_model_len, Ollama cutting it silently) is what the test server
 * does, and the client embeds every text whole, in windows it pools.
 */
const MODEL = 'intfloat/multilingual-e5-small';
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 97}`).join(' ');
/** About 900 tokens: past a 512-token window. */
const LONG = `Odysseus sailed home to Ithaca . ${words(880, 'w')} . Penelope waited for him .`;
const SHORT = 'Penelope was the wife of Odysseus .';

let server: FlavouredServer | undefined;
const disposers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const d of disposers.splice(0)) await d();
  await server?.close();
  server = undefined;
});

async function serve(options: Omit<FlavouredServerOptions, 'model' | 'embeddings'>): Promise<FlavouredServer> {
  server = await startFlavouredServer({ model: MODEL, embeddings: true, ...options });
  return server;
}

const config = (s: FlavouredServer) =>
  endpointConfigSchema.parse({ id: 'emb', role: 'embedding', baseUrl: s.baseUrl, model: MODEL, concurrency: 1 });

/** Every token of the long text reached the model: the windows' tokens (less the prefix and special tokens of each) cover it. */
function coveredWholly(windows: readonly number[]): void {
  const prefixTokens = toyTokens('passage: ').length;
  const seen = windows.reduce((n, t) => n + t - 2 - prefixTokens, 0);
  expect(seen).toBeGreaterThanOrEqual(toyTokens(LONG).length);
}

describe('embedding within the window the server has', () => {
  it('vLLM: the window is max_model_len from /v1/models; nothing is refused', async () => {
    const s = await serve({ flavour: 'vllm', contextTokens: 512 });
    const embedder = await OpenAiEmbedder.create(config(s));
    disposers.push(() => embedder.dispose());
    expect(embedder.windowTokens).toBe(512);
    const [long, short] = await embedder.embed([LONG, SHORT]);
    expect(s.refusals).toBe(0);
    expect(Math.max(...s.embedded)).toBeLessThanOrEqual(512);
    const windows = s.embedded.length - 2; // the dimension probe and SHORT
    expect(windows).toBeGreaterThan(1);
    coveredWholly(s.embedded.slice(1, -1));
    expect(long!.length).toBe(64);
    expect(Math.hypot(...long!)).toBeCloseTo(1, 5);
    expect(cosine(long!, short!)).toBeLessThan(0.99);
  });

  it('Ollama: the window is /api/show context_length; nothing is cut silently', async () => {
    const s = await serve({ flavour: 'ollama', contextTokens: 512 });
    const embedder = await OpenAiEmbedder.create(config(s));
    disposers.push(() => embedder.dispose());
    expect(embedder.windowTokens).toBe(512);
    await embedder.embed([LONG]);
    expect(s.truncatedInputs).toBe(0);
  });

  it('llama-server: an input past the physical batch gets HTTP 500; the window is learned from it and the endpoint stays in the pool', async () => {
    // bge-m3-like: a large n_ctx in /props, the default 512-token ubatch.
    const s = await serve({ flavour: 'llama-server', contextTokens: 8192, ubatch: 512 });
    const pooled = await PooledEmbedder.create([config(s)], { healthIntervalMs: 60_000 });
    disposers.push(() => pooled.dispose());
    const [long] = await pooled.embed([LONG]);
    expect(s.refusals).toBe(1);
    expect(Math.hypot(...long!)).toBeCloseTo(1, 5);
    expect(Math.max(...s.embedded)).toBeLessThanOrEqual(512);
    const [status] = pooled.status();
    expect(status).toMatchObject({ health: 'up', failures: 0 });
    // Learned once: the next long text is cut to the batch at the first try.
    await pooled.embed([LONG]);
    expect(s.refusals).toBe(1);
  });

  it('llama-server worded as at llama.cpp fb40266 (no counts in the refusal): the window falls to the default physical batch, and the endpoint stays in the pool', async () => {
    const s = await serve({ flavour: 'llama-server', contextTokens: 8192, ubatch: 512, plainRefusals: true });
    const pooled = await PooledEmbedder.create([config(s)], { healthIntervalMs: 60_000 });
    disposers.push(() => pooled.dispose());
    const [long] = await pooled.embed([LONG]);
    expect(s.refusals).toBe(1);
    expect(Math.hypot(...long!)).toBeCloseTo(1, 5);
    expect(Math.max(...s.embedded)).toBeLessThanOrEqual(512);
    expect(pooled.status()[0]).toMatchObject({ health: 'up', failures: 0 });
  });

  it('llama-server with n_ctx 512 (e5 as the README runs it): split at once', async () => {
    const s = await serve({ flavour: 'llama-server', contextTokens: 512 });
    const embedder = await OpenAiEmbedder.create(config(s));
    disposers.push(() => embedder.dispose());
    await embedder.embed([LONG, SHORT]);
    expect(s.refusals).toBe(0);
    coveredWholly(s.embedded.slice(1, -1));
  });
});
