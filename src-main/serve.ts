/**
 * Browser mode: the same renderer and the same Api, served on 127.0.0.1 for headless GPU
 * workstations, machines without Electron's binary, and the e2e tests.
 *
 * Security: binds to loopback only; a per-run secret token is required on every request
 * (a cookie set by the one-time `/auth?token=` link for static files, a Bearer header for
 * `/api/*`, a query parameter for the WebSocket); foreign Host or Origin headers are refused
 * (DNS rebinding, cross-site requests); static paths cannot leave the renderer folder.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Engine } from './engine/api/Engine.js';
import { bearerToken, isOwnOrigin, tokenMatcher } from './loopbackGuard.js';

export interface BrowserServerOptions {
  engine: Engine;
  /** The built renderer (electron-vite's `out/renderer`). */
  rendererDir: string;
  /** Default 0: a random free port. */
  port?: number;
  /** Default: 32 random bytes, hex. */
  token?: string;
  /** Largest accepted request body. Default 16 MiB. */
  maxBodyBytes?: number;
}

export interface BrowserServer {
  url: string;
  /** The link that signs the browser in (sets the session cookie) and opens the app. */
  authUrl: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** The same policy the Electron window enforces: nothing but this origin. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export async function startBrowserServer(options: BrowserServerOptions): Promise<BrowserServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const rendererRoot = realpathSync(options.rendererDir);
  const sockets = new Set<WebSocket>();
  let port = 0;

  const tokenMatches = tokenMatcher(token);
  const originOk = (req: IncomingMessage): boolean => isOwnOrigin(req, port);
  const cookieToken = (req: IncomingMessage): string | undefined => {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [k, v] = part.trim().split('=');
      if (k === 'polyhop_token') return v;
    }
    return undefined;
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[polyhop] request failed:', error);
      if (!res.headersSent)
        send(res, 500, { ok: false, error: { code: 'INTERNAL', message: 'Internal error', details: {} } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!originOk(req))
      return send(res, 403, {
        ok: false,
        error: { code: 'UNAUTHORIZED', message: 'Foreign Host or Origin', details: {} },
      });
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    if (url.pathname === '/auth') {
      if (!tokenMatches(url.searchParams.get('token')))
        return send(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'Bad token', details: {} } });
      res.writeHead(302, {
        'Set-Cookie': `polyhop_token=${token}; HttpOnly; SameSite=Strict; Path=/`,
        Location: `/#token=${token}`,
        'Cache-Control': 'no-store',
      });
      res.end();
      return;
    }

    if (url.pathname.startsWith('/api/')) {
      if (!tokenMatches(bearerToken(req)))
        return send(res, 401, {
          ok: false,
          error: { code: 'UNAUTHORIZED', message: 'Missing or bad token', details: {} },
        });
      if (req.method !== 'POST')
        return send(res, 405, { ok: false, error: { code: 'INVALID_REQUEST', message: 'Use POST', details: {} } });
      const body = await readBody(req, maxBody);
      if (body === null)
        return send(res, 413, {
          ok: false,
          error: { code: 'INVALID_REQUEST', message: `Body over ${maxBody} bytes`, details: {} },
        });
      let payload: unknown;
      try {
        payload = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        return send(res, 400, {
          ok: false,
          error: { code: 'INVALID_REQUEST', message: 'Body is not JSON', details: {} },
        });
      }
      let method: string;
      try {
        method = decodeURIComponent(url.pathname.slice('/api/'.length));
      } catch {
        return send(res, 400, {
          ok: false,
          error: { code: 'INVALID_REQUEST', message: 'Bad method name', details: {} },
        });
      }
      const reply = await options.engine.call(method, payload);
      return send(res, 200, reply);
    }

    if (!tokenMatches(cookieToken(req))) {
      return send(res, 401, {
        ok: false,
        error: {
          code: 'UNAUTHORIZED',
          message: 'Open the link printed by `polyhop serve` (it carries the token)',
          details: {},
        },
      });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, {
        ok: false,
        error: { code: 'INVALID_REQUEST', message: 'Method not allowed', details: {} },
      });
    serveStatic(url.pathname, res);
  }

  function serveStatic(pathname: string, res: ServerResponse): void {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return send(res, 400, { ok: false, error: { code: 'INVALID_REQUEST', message: 'Bad path', details: {} } });
    }
    const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const candidate = resolve(rendererRoot, relative);
    let file: string;
    try {
      file = realpathSync(candidate);
    } catch {
      return send(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'Not found', details: {} } });
    }
    if (
      decoded.includes('\0') ||
      !(file === rendererRoot || file.startsWith(rendererRoot + sep)) ||
      !statSync(file).isFile()
    ) {
      return send(res, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'Not found', details: {} } });
    }
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Security-Policy': contentSecurityPolicy(port),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
    createReadStream(file).pipe(res);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== '/events' || !originOk(req) || !tokenMatches(url.searchParams.get('token'))) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => sockets.delete(ws));
    });
  });

  const unsubscribe = options.engine.onEvent((event) => {
    const message = JSON.stringify(event);
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(message);
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;

  return {
    url,
    authUrl: `${url}auth?token=${token}`,
    port,
    token,
    close: async () => {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

/** Reads the body, or returns null once it passes `limit` bytes. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * `polyhop serve` / `npm run serve`: builds the renderer if needed, serves it, prints the link
 * and runs until interrupted.
 */
export async function runBrowserMode(
  engine: Engine,
  options: { appRoot: string; port?: number | undefined },
): Promise<void> {
  const { ensureBuilt } = await import('./rendererBuild.js');
  ensureBuilt(options.appRoot);
  const server = await startBrowserServer({
    engine,
    rendererDir: join(options.appRoot, 'out', 'renderer'),
    ...(options.port ? { port: options.port } : {}),
  });
  process.stdout.write(
    `Polyhop is running in browser mode. Open this link (it carries this run's secret token):\n  ${server.authUrl}\n`,
  );
  // Watched folders are followed while browser mode runs (catching up first, in the background).
  void engine.watches.start();
  await new Promise<void>((resolveStop) => {
    const stop = (): void => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
}
