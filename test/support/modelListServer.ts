import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NgramEmbedder } from './NgramEmbedder.js';

export interface ModelListServerOptions {
  /** The ids `GET /v1/models` lists. */
  models: string[];
  /**
   * Only this bearer token is accepted. Any other gets a 401: on `GET /v1/models` one whose message
   * quotes the token it got (as careless servers do; the tests check Polyhop never repeats it), on
   * the work routes llama-server's `{"error": {"message": "Invalid API Key", "type":
   * "authentication_error", "code": 401}}` (tools/server/server-http.cpp at ggml-org/llama.cpp
   * aa6192d, `middleware_validate_api_key` :158-168, as flavouredServer.ts cites it).
   */
  apiKey?: string;
  /** Address to listen on. Default: 127.0.0.1. */
  host?: string;
  /** Serves `POST /v1/embeddings` with hashed trigram vectors (deterministic, no model). */
  embeddings?: boolean;
  /**
   * How `POST /v1/chat/completions` answers: every call is refused with this status and body (a
   * server that refuses every generation request, e.g. a model it does not serve). Absent: a
   * one-word completion (what `models endpoint test` asks for).
   */
  chatRefusal?: { status: number; body: unknown };
  /**
   * A work request naming a model `/v1/models` does not list gets 404 as vLLM answers it: every
   * request passes `OpenAIServing._check_model` first (vllm/entrypoints/openai/engine/serving.py
   * at vllm-project/vllm 619e4b3: called from `_pipeline` :516-538, the check :746-774, "The model
   * `x` does not exist." :770, NotFoundError, param "model"), and `create_error_response`
   * (:645-698) wraps it as `{"error": {message, type, code, param}}` (:691-698; older vLLM put
   * the fields at the top level, a shape endpointErrorBodies.test.ts also reads). Ollama (at
   * fb30760) answers `/v1/chat/completions` 404 `{"error": {"message": "model 'x' not found", "type":
   * "not_found_error"}}` (server/routes.go ChatHandler :2481-2486, wrapped by middleware/openai.go
   * writeError :64-78); its native routes send the bare string, the scheduler's being "model \"x\"
   * not found, try pulling it first" (routes.go:3115-3116). llama-server ignores the name.
   */
  unknownModel404?: boolean;
}

export interface ModelListServer {
  /** The API root, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** `METHOD path authorization` of every request it got. */
  requests: string[];
  /** The `model` each work request (POST) named, in order. */
  requestedModels: string[];
  close: () => Promise<void>;
}

/**
 * The routes of an OpenAI-compatible server that `models endpoint test` reaches: `GET /v1/models`,
 * then a one-token completion or a one-input embedding; the key is checked on every route.
 */
export async function startModelListServer({
  models,
  apiKey,
  host = '127.0.0.1',
  embeddings = false,
  chatRefusal,
  unknownModel404 = false,
}: ModelListServerOptions): Promise<ModelListServer> {
  const requests: string[] = [];
  const requestedModels: string[] = [];
  const embedder = new NgramEmbedder(64);
  const server = createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    requests.push(`${req.method} ${req.url} ${authorization}`);
    const reply = (status: number, body: unknown): void => {
      res
        .writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' })
        .end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const refusedKey = apiKey !== undefined && authorization !== `Bearer ${apiKey}`;
    if (req.method === 'POST' && (req.url === '/v1/embeddings' || req.url === '/v1/chat/completions')) {
      if (refusedKey)
        return reply(401, { error: { message: 'Invalid API Key', type: 'authentication_error', code: 401 } });
      let raw = '';
      req.on('data', (chunk) => (raw += String(chunk)));
      req.on('end', () => {
        const model = String((JSON.parse(raw) as { model?: unknown }).model);
        requestedModels.push(model);
        if (unknownModel404 && !models.includes(model))
          return reply(404, {
            error: {
              message: `The model \`${model}\` does not exist.`,
              type: 'NotFoundError',
              param: 'model',
              code: 404,
            },
          });
        if (req.url === '/v1/chat/completions' && chatRefusal) return reply(chatRefusal.status, chatRefusal.body);
        if (req.url === '/v1/chat/completions')
          return reply(200, {
            id: 'c',
            object: 'chat.completion',
            created: 0,
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'length' }],
            usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
          });
        if (req.url !== '/v1/embeddings' || !embeddings)
          return reply(404, { error: { message: `no route POST ${req.url}`, type: 'not_found' } });
        const input = (JSON.parse(raw) as { input: string | string[] }).input;
        void embedder.embed(Array.isArray(input) ? input : [input]).then((vectors) =>
          reply(200, {
            object: 'list',
            data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })),
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        );
      });
      return;
    }
    if (req.method !== 'GET' || req.url !== '/v1/models')
      return reply(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
    if (refusedKey)
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
    requestedModels,
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
