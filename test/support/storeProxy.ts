import { type IncomingMessage, type Server, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of a real store: forwards every request unchanged and lets a test
 * see each one as it arrives (`onRequest`), e.g. to press Ctrl-C at the moment a publish starts,
 * without racing a process kill, or make the store go away at a given step (`failing`).
 */
export class StoreProxy {
  /** Called for each request before it is forwarded. */
  onRequest: ((req: IncomingMessage) => void) | null = null;
  /** While true, each request's connection is dropped unanswered, as by a store that went away. */
  failing = false;
  readonly seen: { method: string; path: string }[] = [];
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(targetPort: number): Promise<StoreProxy> {
    let proxy: StoreProxy | null = null;
    const server = createServer((req, res) => {
      proxy!.seen.push({ method: req.method ?? '', path: req.url ?? '' });
      proxy!.onRequest?.(req);
      if (proxy!.failing) {
        req.socket.destroy();
        return;
      }
      const upstream = httpRequest(
        { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => req.socket.destroy());
      req.on('error', () => upstream.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    proxy = new StoreProxy(server);
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((ok) => this.#server.close(() => ok()));
  }
}
