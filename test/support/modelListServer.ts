import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelListServerOptions {
  /** The ids `GET /v1/models` lists. */
  models: string[];
  /** Only this bearer token is accepted; any other gets a 401 whose message quotes the token it got (as careless servers do). */
  apiKey?: string;
  /** Address to listen on. Default: 127.0.0.1. */
  host?: string;
}

export interface ModelListServer {
  /** The API root, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** `METHOD path authorization` of every request it got. */
  requests: string[];
  close: () => Promise<void>;
}

/** The one route of an OpenAI-compatible server that `models endpoint test` reaches: `GET /v1/models`. */
export async function startModelListServer({
  models,
  apiKey,
  host = '127.0.0.1',
}: ModelListServerOptions): Promise<ModelListServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    requests.push(`${req.method} ${req.url} ${authorization}`);
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || req.url !== '/v1/models')
      return reply(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
    if (apiKey !== undefined && authorization !== `Bearer ${apiKey}`)
      return reply(401, {
        error: {
          message: `Incorrect API key provided: ${authorization.replace(/^Bearer /, '')}`,
          type: 'invalid_request_error',
        },
      });
    reply(200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })) });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the client keeps connections alive
      }),
  };
}

/** A loopback port nothing listens on (bound, then released): connections to it are refused. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
