import { PolyhopError } from '../base/errors.js';
import type { EndpointSetting, Settings } from './contract.js';

/**
 * Endpoint API keys stay in the settings file: every Api reply carries `hasApiKey` instead, and a
 * settings write that sends an endpoint back with `hasApiKey` (and no `apiKey`) keeps its stored key.
 */
export function redactSettings(settings: Settings): Settings {
  return { ...settings, endpoints: settings.endpoints.map(redactEndpoint) };
}

export function redactEndpoint({ apiKey, hasApiKey: _, ...endpoint }: EndpointSetting): EndpointSetting {
  return { ...endpoint, hasApiKey: apiKey !== undefined };
}

/**
 * The settings patch as the store takes it: `hasApiKey` dropped, and where it stands in for the
 * key, the key stored for that endpoint id put back. Anything else is left to the settings schema.
 */
export function restoreEndpointKeys(patch: Record<string, unknown>, stored: Settings): Record<string, unknown> {
  if (!Array.isArray(patch.endpoints)) return patch;
  const endpoints = patch.endpoints.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null || !('hasApiKey' in entry)) return entry;
    const { hasApiKey, ...rest } = entry as Record<string, unknown>;
    if (hasApiKey !== true || rest.apiKey !== undefined) return rest;
    const key = stored.endpoints.find((e) => e.id === rest.id)?.apiKey;
    if (key === undefined)
      throw new PolyhopError(
        'INVALID_REQUEST',
        `Invalid settings: endpoint "${String(rest.id)}" says it has an API key, but none is stored for it: send apiKey`,
      );
    return { ...rest, apiKey: key };
  });
  return { ...patch, endpoints };
}
