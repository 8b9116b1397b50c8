import type { Settings } from './contract.js';

/**
 * The hosts beyond loopback the engine may connect to, all of them named by the user in settings:
 * the inference servers' hosts. A new kind of remote service adds its own source here (the
 * offline test's guard and `polyhop doctor` read this list). Lower-case, IPv6 without brackets.
 */
export function networkAllowList(settings: Pick<Settings, 'endpoints'>): string[] {
  const hosts = settings.endpoints.map((e) => new URL(e.baseUrl).hostname);
  return [...new Set(hosts.map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()))].sort();
}
