import OpenAI from 'openai';
import type { EndpointConfig, EndpointProbe } from './EndpointConfig.js';

export interface ProbeEndpointOptions {
  signal?: AbortSignal;
  /** Time the round trip may take. Default: 10 000 ms. */
  timeoutMs?: number;
}

/** One real `GET /models` round trip to an endpoint; network failures are reported, never thrown. */
export async function probeEndpoint(config: EndpointConfig, options: ProbeEndpointOptions = {}): Promise<EndpointProbe> {
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey ?? 'none', maxRetries: 0, timeout: options.timeoutMs ?? 10_000 });
  const started = performance.now();
  try {
    const servedModels: string[] = [];
    for await (const model of client.models.list({ signal: options.signal })) servedModels.push(model.id);
    return { ok: true, servedModels, modelServed: servedModels.includes(config.model), latencyMs: Math.round(performance.now() - started), error: null };
  } catch (error) {
    return { ok: false, servedModels: [], modelServed: false, latencyMs: Math.round(performance.now() - started), error: error instanceof Error ? error.message : String(error) };
  }
}
