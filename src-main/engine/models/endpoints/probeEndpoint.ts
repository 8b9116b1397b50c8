import type OpenAI from 'openai';
import type { EndpointConfig, EndpointProbe } from './EndpointConfig.js';
import { endpointClient } from './endpointClient.js';
import { redactedMessage } from './endpointErrors.js';

const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

export interface ProbeEndpointOptions {
  signal?: AbortSignal;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /**
   * Also make one authenticated call for the endpoint's role (a one-token completion, a one-input
   * embedding). Default true. The pool's health checks skip it: reconnecting asks the server again.
   */
  roleCall?: boolean;
}

/**
 * A real test of an endpoint: `GET /models`, then one call of the endpoint's role. The model list
 * alone proves little: llama-server serves it without a key (tools/server/server-http.cpp, the
 * public routes of `middleware_validate_api_key`, :121-127 at ggml-org/llama.cpp aa6192d), so a
 * wrong key passed; and a server of the other role lists its model all the same. Never throws for
 * network or HTTP errors; they come back as `ok: false` with the reason (and never the API key).
 */
export async function probeEndpoint(
  config: EndpointConfig,
  options: ProbeEndpointOptions = {},
): Promise<EndpointProbe> {
  const started = performance.now();
  const client = endpointClient(config, options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  const ms = () => Math.round(performance.now() - started);
  const failed = (error: unknown): string =>
    `${config.baseUrl}: ${options.signal?.aborted ? 'cancelled' : redactedMessage(error, config)}`;
  const servedModels: string[] = [];
  try {
    for await (const model of client.models.list(options.signal ? { signal: options.signal } : {}))
      servedModels.push(model.id);
  } catch (error) {
    return { ok: false, servedModels: [], modelServed: false, latencyMs: ms(), error: failed(error), roleCall: null };
  }
  const modelServed = servedModels.includes(config.model);
  if (options.roleCall === false)
    return { ok: true, servedModels, modelServed, latencyMs: ms(), error: null, roleCall: null };
  // The id the pool would send: the configured one, else the only model listed (llama-server).
  const model = modelServed ? config.model : servedModels.length === 1 ? (servedModels[0] as string) : config.model;
  try {
    const { what, dimension } = await roleCall(client, config.role, model, options.signal);
    return {
      ok: true,
      servedModels,
      modelServed,
      latencyMs: ms(),
      error: null,
      roleCall: { role: config.role, ok: true, what, error: null, ...(dimension ? { dimension } : {}) },
    };
  } catch (error) {
    const reason = failed(error);
    return {
      ok: false,
      servedModels,
      modelServed,
      latencyMs: ms(),
      error: reason,
      roleCall: { role: config.role, ok: false, what: ROLE_CALL[config.role], error: reason },
    };
  }
}

const ROLE_CALL = { generation: 'a one-token completion', embedding: 'a one-input embedding' } as const;

/** One call of the role; what it showed, or a throw saying why the endpoint cannot serve the role. */
async function roleCall(
  client: OpenAI,
  role: EndpointConfig['role'],
  model: string,
  signal?: AbortSignal,
): Promise<{ what: string; dimension?: number }> {
  const request = signal ? { signal } : {};
  if (role === 'generation') {
    const reply = await client.chat.completions.create(
      { model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1, temperature: 0, stream: false },
      request,
    );
    if (!Array.isArray(reply.choices) || reply.choices.length === 0)
      throw new Error(`${ROLE_CALL.generation} came back without a choice: not a generation model`);
    return { what: `${ROLE_CALL.generation} answered` };
  }
  const reply = await client.embeddings.create({ model, input: ['probe'], encoding_format: 'float' }, request);
  const vector = reply.data?.[0]?.embedding;
  if (!Array.isArray(vector) || vector.length === 0)
    throw new Error(`${ROLE_CALL.embedding} came back without a vector: not an embedding model`);
  return { what: `${ROLE_CALL.embedding} answered with ${vector.length} dimensions`, dimension: vector.length };
}
