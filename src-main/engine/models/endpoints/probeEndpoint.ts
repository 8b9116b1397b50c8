import type { EndpointConfig, EndpointProbe } from './EndpointConfig.js';
import { endpointClient } from './endpointClient.js';
import { redactedMessage } from './endpointErrors.js';

const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/**
 * One real round-trip to an endpoint: `GET /models`. Never throws for network or HTTP errors;
 * they come back as `ok: false` with the reason (and never the API key).
 */
export async function probeEndpoint(config: EndpointConfig, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<EndpointProbe> {
  const started = performance.now();
  const client = endpointClient(config, options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
  try {
    const servedModels: string[] = [];
    for await (const model of client.models.list(options.signal ? { signal: options.signal } : {})) servedModels.push(model.id);
    return { ok: true, servedModels, modelServed: servedModels.includes(config.model), latencyMs: Math.round(performance.now() - started), error: null };
  } catch (error) {
    const reason = options.signal?.aborted ? 'cancelled' : redactedMessage(error, config);
    return { ok: false, servedModels: [], modelServed: false, latencyMs: Math.round(performance.now() - started), error: `${config.baseUrl}: ${reason}` };
  }
}
