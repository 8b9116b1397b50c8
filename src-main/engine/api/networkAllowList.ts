import type { Settings } from './contract.js';

/**
 * The hosts beyond loopback the engine may connect to, all of them named by the user: the
 * inference servers' hosts (settings) and the external SPARQL stores' (`storeUrls`, from
 * stores.json). The offline test's guard and `polyhop doctor` read this list. Lower-case, IPv6
 * without brackets.
 */
export function networkAllowList(settings: Pick<Settings, 'endpoints'>, storeUrls: readonly string[] = []): string[] {
  const hosts = [...settings.endpoints.map((e) => e.baseUrl), ...storeUrls].map((url) => new URL(url).hostname);
  return [...new Set(hosts.map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()))].sort();
}
