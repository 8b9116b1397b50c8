import { afterEach, describe, expect, it } from 'vitest';
import { endpointConfigSchema } from '../../../src-main/engine/models/endpoints/EndpointConfig.js';
import { OpenAiEmbedder } from '../../../src-main/engine/models/endpoints/OpenAiEmbedder.js';
import { OpenAiLlm } from '../../../src-main/engine/models/endpoints/OpenAiLlm.js';
import {
  startFlavouredServer,
  toyTokens,
  type FlavouredServer,
  type ServerFlavour,
} from '../../support/flavouredServer.js';

/**
 * Issue 24: servers without a tokenizer route (Ollama, LM Studio) and texts that are not English.
 * The double's tokenizer cuts each script as real vocabularies do (flavouredWire.ts toyTokens:
 * a CJK character a token, Cyrillic in two-letter pieces), so one characters-per-token ratio cut
 * a Japanese or Russian passage far past a 512-token window: Ollama truncated it silently, vLLM
 * and llama-server refused it.
 */
const JAPANESE =
  'オデュッセウスはイタカの王であった。彼はトロイア戦争の後、十年をかけて故郷へ帰った。妻のペネロペは機を織りながら夫を待ち続けた。'.repeat(
    20,
  );
const RUSSIAN =
  'Одиссей был царём Итаки. После Троянской войны он десять лет возвращался домой. Его жена Пенелопа ткала саван и ждала мужа. '.repeat(
    15,
  );
const CODE = 'for (let i = 0; i < xs.length; i++) { if (xs[i] > max) { max = xs[i]; } }\n'.repeat(4);
const ENGLISH = 'Penelope waited for Odysseus in Ithaca while the suitors crowded her hall and ate his cattle. '.repeat(
  55,
);
const MODEL = 'intfloat/multilingual-e5-small';

const servers: FlavouredServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function embedderOn(flavour: ServerFlavour): Promise<{ server: FlavouredServer; embedder: OpenAiEmbedder }> {
  const server = await startFlavouredServer({ flavour, model: MODEL, embeddings: true, contextTokens: 512 });
  servers.push(server);
  const embedder = await OpenAiEmbedder.create(
    endpointConfigSchema.parse({ id: 'emb', role: 'embedding', baseUrl: server.baseUrl, model: MODEL, concurrency: 1 }),
  );
  return { server, embedder };
}

/** The windows' tokens, less each one's prefix and special tokens, cover every token of `text`. */
function coveredWholly(windows: readonly number[], text: string): void {
  const own = 2 + toyTokens('passage: ').length;
  expect(windows.reduce((n, t) => n + t - own, 0)).toBeGreaterThanOrEqual(toyTokens(text).length);
}

describe('a passage in another script fits a 512-token embedding window', () => {
  for (const flavour of ['ollama', 'vllm', 'llama-server'] as const) {
    for (const [language, text] of [
      ['Japanese', JAPANESE],
      ['Russian', RUSSIAN],
    ] as const) {
      it(`${flavour}${flavour === 'ollama' ? ' (no /tokenize)' : ''}: a ${language} passage is neither refused nor cut`, async () => {
        expect(toyTokens(text).length).toBeGreaterThan(512);
        const { server, embedder } = await embedderOn(flavour);
        const [vector] = await embedder.embed([text]);
        expect(server.refusals).toBe(0);
        expect(server.truncatedInputs).toBe(0);
        expect(Math.max(...server.embedded)).toBeLessThanOrEqual(512);
        coveredWholly(server.embedded.slice(1), text);
        expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
      });
    }
  }

  it('Ollama: the usage of replies it cannot have cut corrects the estimate: English windows grow towards the window', async () => {
    const long = ENGLISH;
    const fresh = await embedderOn('ollama');
    await fresh.embedder.embed([long]);
    const untaught = fresh.server.embedded.length - 1;

    const { server, embedder } = await embedderOn('ollama');
    // Short English texts: their count (below one window) is exact, and says English takes fewer tokens than assumed.
    await embedder.embed(
      Array<string>(20).fill('Penelope waited for Odysseus in Ithaca for twenty years, as the story tells.'),
    );
    const before = server.embedded.length;
    await embedder.embed([long]);
    const taught = server.embedded.length - before;
    expect(taught).toBeLessThan(untaught);
    expect(server.truncatedInputs).toBe(0);
    expect(Math.max(...server.embedded)).toBeLessThanOrEqual(512);
  });
});

describe('a generation endpoint without /tokenize counts other scripts and code on the high side', () => {
  it('Ollama: Japanese, Russian and code are estimated at no fewer tokens than the server counts', async () => {
    const server = await startFlavouredServer({ flavour: 'ollama', model: 'qwen3-8b' });
    servers.push(server);
    const llm = await OpenAiLlm.create(
      endpointConfigSchema.parse({ id: 'gen', role: 'generation', baseUrl: server.baseUrl, model: 'qwen3-8b' }),
    );
    for (const text of [JAPANESE, RUSSIAN, CODE])
      expect(llm.countTokens(text)).toBeGreaterThanOrEqual(toyTokens(text).length);
  });
});
