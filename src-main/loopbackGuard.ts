/**
 * The checks every loopback HTTP front door (browser mode, MCP over HTTP) makes before it reads
 * a request: the per-run token, compared in constant time, and a Host/Origin naming this very
 * listener (a page on another site, or a DNS-rebound name, is refused).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export function tokenMatcher(token: string): (candidate: string | undefined | null) => boolean {
  const expected = Buffer.from(token);
  return (candidate) => {
    if (!candidate) return false;
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

/** True when Host is this listener on 127.0.0.1/localhost and Origin, if sent, is too. */
export function isOwnOrigin(req: IncomingMessage, port: number): boolean {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) return false;
  const origin = req.headers.origin;
  return origin === undefined || hosts.some((host) => origin === `http://${host}`);
}

export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
}
