import type OpenAI from 'openai';
import { PolyhopError } from '../../base/errors.js';
import type { EndpointConfig } from './EndpointConfig.js';
import { serverRoot } from './endpointClient.js';
import { endpointError } from './endpointErrors.js';

/** What a server says about itself and the model it serves. */
export interface ServerFacts {
  /** The `/models` id the configured model resolves to. */
  servedModel: string;
  /** Tokens of one call's context, when the server reports them (vLLM `max_model_len`, llama-server `/props`). */
  contextTokens: number | undefined;
}

/**
 * Asks the server which model it serves: the configured name when `/models` lists it, else the only
 * model listed (llama-server serves one model whatever the request names). Several models and
 * none of them configured is a clear error, as is an unreachable server (an endpoint failure).
 */
export async function serverFacts(client: OpenAI, config: EndpointConfig, signal?: AbortSignal): Promise<ServerFacts> {
  let listed: (OpenAI.Models.Model & { max_model_len?: unknown })[];
  try {
    listed = [];
    for await (const model of client.models.list(signal ? { signal } : {})) listed.push(model);
  } catch (error) {
    throw endpointError(error, config, 'listing models', signal);
  }
  const entry = listed.find((m) => m.id === config.model) ?? (listed.length === 1 ? listed[0] : undefined);
  if (!entry) {
    throw new PolyhopError('BAD_INPUT', `Endpoint ${config.id} (${config.baseUrl}) does not serve model "${config.model}"; it serves: ${listed.map((m) => m.id).join(', ') || 'nothing'}`, {
      details: { endpoint: config.id, servedModels: listed.map((m) => m.id) },
    });
  }
  const fromList = typeof entry.max_model_len === 'number' ? entry.max_model_len : undefined;
  return { servedModel: entry.id, contextTokens: fromList ?? (await llamaServerContext(client, config, signal)) };
}

/** llama-server's per-slot context from `/props`; other servers have no such route (undefined). */
async function llamaServerContext(client: OpenAI, config: EndpointConfig, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const props = await client.get<{ n_ctx?: unknown; default_generation_settings?: { n_ctx?: unknown } }>(`${serverRoot(config.baseUrl)}/props`, signal ? { signal } : {});
    const nCtx = props.default_generation_settings?.n_ctx ?? props.n_ctx;
    return typeof nCtx === 'number' && nCtx > 0 ? nCtx : undefined;
  } catch {
    return undefined;
  }
}

/** A sample of several scripts, for measuring how many characters a server's token covers. */
const CALIBRATION_TEXT =
  'Odysseus was the king of Ithaca. Penelope era la moglie di Ulisse. Télémaque chercha son père à Pylos. ' +
  'Telémaco buscó a su padre. 1873, 42 km; "quoted" (text) — dash.';

/**
 * Characters per token of the server's tokenizer, measured once with llama-server's
 * `POST /tokenize`; null when the server has no tokenizer route (vLLM's is elsewhere, Ollama has none).
 */
export async function measureCharsPerToken(client: OpenAI, config: EndpointConfig, signal?: AbortSignal): Promise<number | null> {
  try {
    const reply = await client.post<{ tokens?: unknown[] }>(`${serverRoot(config.baseUrl)}/tokenize`, { body: { content: CALIBRATION_TEXT }, ...(signal ? { signal } : {}) });
    const count = Array.isArray(reply.tokens) ? reply.tokens.length : 0;
    return count > 0 ? CALIBRATION_TEXT.length / count : null;
  } catch {
    return null;
  }
}
