import dgram from 'node:dgram';
import dns from 'node:dns';
import { isIP } from 'node:net';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

/**
 * A Node-level network guard for tests: while installed, every outgoing TCP/TLS connection,
 * UDP datagram, DNS query and `fetch` to a destination other than loopback (or a Unix socket)
 * or a host of the allow-list is refused before it leaves the process and recorded as a
 * violation. What is let through is counted, so a test can also prove the guard sat in the path.
 *
 * It sees this thread's JavaScript only: worker threads and native code are covered by running
 * the same flow in a network namespace (see offlineChild.ts).
 */
export interface NetworkViolation {
  api: string;
  destination: string;
  stack: string;
}

export interface NetworkGuardOptions {
  /** Hosts beyond loopback that may be reached (names or addresses, as the engine's `networkAllowList` gives them). Default: none. */
  allowHosts?: readonly string[];
}

export interface NetworkGuard {
  readonly violations: NetworkViolation[];
  /** Loopback, Unix-socket and allow-listed destinations that were let through. */
  readonly allowed: string[];
  uninstall(): void;
}

/** True for names and addresses that stay on this machine. */
export function isLoopbackHost(host: string | undefined | null): boolean {
  if (host === undefined || host === null || host === '') return true; // Node's default is localhost
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(h);
  return false;
}

type AnyFn = (...args: unknown[]) => unknown;

const bare = (host: string): string => host.replace(/^\[|\]$/g, '').toLowerCase();

export function installNetworkGuard({ allowHosts = [] }: NetworkGuardOptions = {}): NetworkGuard {
  const allowList = new Set(allowHosts.map(bare));
  const mayReach = (host: string | undefined | null): boolean =>
    isLoopbackHost(host) || allowList.has(bare(host ?? ''));
  const violations: NetworkViolation[] = [];
  const allowed: string[] = [];
  const restore: (() => void)[] = [];

  const refuse = (api: string, destination: string): Error => {
    violations.push({ api, destination, stack: new Error().stack ?? '' });
    return Object.assign(new Error(`networkGuard: ${api} to ${destination} refused (tests run offline)`), {
      code: 'ENETUNREACH',
    });
  };
  const patch = <T extends object>(target: T, key: string, make: (original: AnyFn) => AnyFn): void => {
    const original = (target as Record<string, AnyFn>)[key];
    if (typeof original !== 'function') return;
    (target as Record<string, AnyFn>)[key] = make(original);
    restore.push(() => ((target as Record<string, AnyFn>)[key] = original));
  };

  /** Host of any form net/tls connect accepts: (options), (port, host), (path), or the normalised [options, cb]. */
  const destinationOf = (args: unknown[]): { host: string | undefined; port: unknown; ipc: boolean } => {
    let first = args[0];
    if (Array.isArray(first)) first = first[0];
    if (first !== null && typeof first === 'object') {
      const o = first as { host?: string; hostname?: string; port?: unknown; path?: string };
      if (typeof o.path === 'string' && o.port === undefined) return { host: undefined, port: undefined, ipc: true };
      return { host: o.host ?? o.hostname, port: o.port, ipc: false };
    }
    if (typeof first === 'string' && !/^\d+$/.test(first)) return { host: undefined, port: undefined, ipc: true }; // Unix socket path
    return { host: typeof args[1] === 'string' ? args[1] : undefined, port: first, ipc: false };
  };

  const guardConnect =
    (api: string) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        const { host, port, ipc } = destinationOf(args);
        const destination = ipc ? 'unix socket' : `${host ?? 'localhost'}:${String(port)}`;
        if (ipc || mayReach(host)) {
          allowed.push(`${api} ${destination}`);
          return original.apply(this, args);
        }
        const error = refuse(api, destination);
        // Fail the way an unreachable network does: asynchronously, through the socket.
        process.nextTick(() => (this as net.Socket).destroy(error));
        return this;
      };

  // net.connect, net.createConnection, tls.connect, http(s) agents and undici (fetch) all end in
  // Socket#connect, so the prototype is the one place that sees every TCP destination.
  patch(net.Socket.prototype, 'connect', guardConnect('net.Socket.connect'));

  // UDP: send(msg, [offset, length,] port, [address,] cb) and connect(port, [address,] cb).
  const udpAddress = (args: unknown[]): string | undefined => {
    const portAt = args.findIndex(
      (a, i) => i > 0 && typeof a === 'number' && (typeof args[i + 1] === 'string' || typeof args[i + 1] !== 'number'),
    );
    const after = portAt >= 0 ? args[portAt + 1] : undefined;
    return typeof after === 'string' ? after : undefined;
  };
  const guardUdp =
    (api: string, addressOf: (args: unknown[]) => string | undefined) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        const host = addressOf(args);
        if (mayReach(host)) {
          allowed.push(`${api} ${host ?? 'localhost'}`);
          return original.apply(this, args);
        }
        throw refuse(api, host ?? '?');
      };
  patch(dgram.Socket.prototype, 'send', guardUdp('dgram.send', udpAddress));
  patch(
    dgram.Socket.prototype,
    'connect',
    guardUdp('dgram.connect', (args) => (typeof args[1] === 'string' ? args[1] : undefined)),
  );

  // DNS: a lookup of a remote name already leaks what the app wants to reach.
  const guardLookup =
    (api: string, promise: boolean) =>
    (original: AnyFn): AnyFn =>
      function (this: unknown, ...args: unknown[]) {
        const host = String(args[0]);
        if (mayReach(host)) {
          allowed.push(`${api} ${host}`);
          return original.apply(this, args);
        }
        const error = Object.assign(refuse(api, host), { code: 'ENOTFOUND' });
        if (promise) return Promise.reject(error);
        const callback = args.findLast((a) => typeof a === 'function') as ((e: Error) => void) | undefined;
        if (callback) process.nextTick(() => callback(error));
        return undefined;
      };
  const RESOLVERS = [
    'lookup',
    'lookupService',
    'resolve',
    'resolve4',
    'resolve6',
    'resolveAny',
    'resolveCname',
    'resolveMx',
    'resolveNs',
    'resolveTxt',
    'resolveSrv',
    'resolvePtr',
    'resolveNaptr',
    'resolveSoa',
    'reverse',
  ];
  for (const name of RESOLVERS) {
    patch(dns, name, guardLookup(`dns.${name}`, false));
    patch(dns.promises, name, guardLookup(`dns.promises.${name}`, true));
    patch(dns.Resolver.prototype, name, guardLookup(`dns.Resolver.${name}`, false));
    patch(dns.promises.Resolver.prototype, name, guardLookup(`dns.promises.Resolver.${name}`, true));
  }

  const originalFetch = globalThis.fetch;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (mayReach(url.hostname)) {
      allowed.push(`fetch ${url.host}`);
      return originalFetch(input, init);
    }
    throw new TypeError('fetch failed', { cause: refuse('fetch', url.host) });
  }) as typeof fetch;
  restore.push(() => (globalThis.fetch = originalFetch));

  syncBuiltinESMExports();
  return {
    violations,
    allowed,
    uninstall: () => {
      for (const undo of restore.reverse()) undo();
      syncBuiltinESMExports();
    },
  };
}
