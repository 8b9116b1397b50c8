import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  LlamaChat,
  type ChatHistoryItem,
  type GbnfJsonSchema,
  type LlamaContext,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import { getLlamaRuntime, type LlamaRuntime } from '../../src-main/engine/models/llamaRuntime.js';
import type { Embedder } from '../../src-main/engine/models/Embedder.js';
import type { GpuThroughput } from '../../src-main/engine/models/gpuThroughput.js';
import { toGrammarSchema, withSpellableEnums, type JsonSchema } from '../../src-main/engine/models/grammarSchema.js';
import { SequencePool } from '../../src-main/engine/models/SequencePool.js';
import { SimulatedGpu } from './SimulatedGpu.js';

/**
 * A test-side OpenAI-compatible inference server, shaped like llama.cpp's `llama-server`: the
 * generated fixture GGUF runs through the real node-llama-cpp (one context, one sequence per
 * parallel slot), `response_format: json_schema` becomes a grammar the way llama-server does it
 * (JSON Schema → grammar subset → `llama.createGrammarForJsonSchema`), `max_tokens`, SSE streaming
 * and `usage` are honoured, and `/v1/models`, `/v1/embeddings`, `/tokenize` and `/props` answer.
 *
 * Faults are injected per instance: {@link inject} queues one for the next work requests (chat
 * completions and embeddings), {@link kill} closes every socket and stops listening, {@link revive}
 * listens again on the same port. `latencyMs` adds a fixed delay to every work request.
 */
export interface OpenAiServerOptions {
  /** The GGUF to serve (e.g. `tinyLlamaPath()`). */
  modelPath: string;
  /** The model id `/v1/models` reports. Default 'tiny-llama'. */
  modelName?: string;
  /** Parallel slots (context sequences). Default 1: one request at a time gives the same reply however busy the machine. */
  slots?: number;
  /** Tokens per slot. Default 4096. */
  contextSize?: number;
  /** Serves `/v1/embeddings` with it (the server does not own it). */
  embedder?: Embedder;
  /** Added before every work request is handled. Default 0. */
  latencyMs?: number;
  /**
   * Replies shared between servers: a chat request already answered by any server using the same
   * recording is answered again with that reply (text, finish reason, usage) without running the
   * model, the way a much faster GPU server would give it. Benchmarks use it so that the fixed
   * latency, not this machine's CPUs, is the cost of a call.
   */
  recording?: ReplyRecording;
  /**
   * The GPU a recorded reply is timed on: a replayed call holds its slot for the time this GPU
   * takes for its prompt and output tokens, slots sharing it (see {@link SimulatedGpu}). Without
   * it a replay is immediate. A reply the fixture model computes takes its own CPU time instead.
   */
  gpu?: GpuThroughput;
}

/** Chat replies by request (messages, schema, budget, sampling), filled as the model answers. */
export type ReplyRecording = Map<
  string,
  { text: string; finish: 'length' | 'stop'; promptTokens: number; completionTokens: number }
>;

export type ServerFault =
  /** Reply HTTP 500. */
  | 'http500'
  /** Send the headers and one chunk, then nothing until the client gives up. */
  | 'stall'
  /** Start the reply stream, then destroy the connection. */
  | 'dropStream'
  /** Reply with text that is not JSON, though the request asked for a JSON schema. */
  | 'invalidJson'
  /** Start the reply stream, then {@link OpenAiTestServer.kill} the whole server. */
  | 'kill';

interface ChatRequest {
  model?: string;
  messages?: { role: string; content: string }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  seed?: number;
  stream?: boolean;
  response_format?: { type: string; json_schema?: { name?: string; schema?: JsonSchema } };
}

interface Slot {
  chat: LlamaChat;
}

export class OpenAiTestServer {
  readonly modelName: string;
  /** Work requests received (chat completions and embeddings), faulty ones included. */
  workRequests = 0;
  /** Chat completions that were answered in full. */
  completions = 0;
  /** The `usage.prompt_tokens` and `completion_tokens` of those, added up. */
  promptTokens = 0;
  completionTokens = 0;
  readonly #runtime: LlamaRuntime;
  readonly #model: LlamaModel;
  readonly #context: LlamaContext;
  readonly #slots: Slot[];
  readonly #pool: SequencePool<Slot>;
  readonly #embedder: Embedder | undefined;
  readonly #latencyMs: number;
  readonly #recording: ReplyRecording | undefined;
  readonly #gpu: SimulatedGpu | undefined;
  /** Chat replies served from the recording instead of the model. */
  replayed = 0;
  readonly #grammars = new Map<string, Promise<LlamaGrammar>>();
  readonly #faults: ServerFault[] = [];
  readonly #sockets = new Set<Socket>();
  readonly #inFlight = new Set<AbortController>();
  #server: Server;
  #port = 0;
  #listening = false;

  private constructor(init: {
    runtime: LlamaRuntime;
    model: LlamaModel;
    context: LlamaContext;
    options: OpenAiServerOptions;
  }) {
    this.#runtime = init.runtime;
    this.#model = init.model;
    this.#context = init.context;
    this.modelName = init.options.modelName ?? 'tiny-llama';
    this.#embedder = init.options.embedder;
    this.#latencyMs = init.options.latencyMs ?? 0;
    this.#recording = init.options.recording;
    this.#gpu = init.options.gpu ? new SimulatedGpu(init.options.gpu) : undefined;
    this.#slots = Array.from({ length: init.context.totalSequences }, () => ({
      chat: new LlamaChat({ contextSequence: init.context.getSequence(), autoDisposeSequence: false }),
    }));
    this.#pool = new SequencePool(this.#slots);
    this.#server = this.#createServer();
  }

  static async start(options: OpenAiServerOptions): Promise<OpenAiTestServer> {
    const runtime = await getLlamaRuntime(false);
    const model = await runtime.llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    const context = await model.createContext({
      contextSize: options.contextSize ?? 4096,
      sequences: options.slots ?? 1,
      threads: 1,
    });
    const server = new OpenAiTestServer({ runtime, model, context, options });
    await server.revive();
    return server;
  }

  /** The API root, as an endpoint's `baseUrl`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Queues a fault for each of the next `times` work requests. */
  inject(fault: ServerFault, times = 1): void {
    for (let i = 0; i < times; i++) this.#faults.push(fault);
  }

  /** Forgets faults not yet used. */
  clearFaults(): void {
    this.#faults.length = 0;
  }

  /** Closes every connection, in-flight replies included, and stops listening: the port refuses from now on. */
  async kill(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    for (const c of this.#inFlight) c.abort();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
    await closed;
  }

  /** Listens again, on the same port once it had one. */
  async revive(): Promise<void> {
    if (this.#listening) return;
    for (let attempt = 0; ; attempt++) {
      // Below Linux's ephemeral range (32768+): a client retrying a dead port from an ephemeral
      // port could otherwise connect to itself (TCP self-connect) and hold the port.
      const port = this.#port || 20_000 + Math.floor(Math.random() * 12_000);
      this.#server = this.#createServer();
      try {
        await new Promise<void>((resolve, reject) => {
          this.#server.once('error', reject);
          this.#server.listen(port, '127.0.0.1', () => {
            this.#server.off('error', reject);
            resolve();
          });
        });
        this.#port = (this.#server.address() as AddressInfo).port;
        this.#listening = true;
        return;
      } catch (error) {
        if (this.#port || attempt >= 20 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      }
    }
  }

  async close(): Promise<void> {
    await this.kill();
    for (const slot of this.#slots) slot.chat.dispose({ disposeSequence: true });
    await this.#context.dispose();
    await this.#model.dispose();
  }

  #createServer(): Server {
    const server = createServer((req, res) => {
      this.#route(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          json(res, 500, {
            error: { message: error instanceof Error ? error.message : String(error), type: 'server_error' },
          });
        else res.destroy();
      });
    });
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    return server;
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/^\/v1(?=\/)/, '');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (req.method === 'GET' && path === '/models')
      return json(res, 200, {
        object: 'list',
        data: [{ id: this.modelName, object: 'model', created: 0, owned_by: 'polyhop-test' }],
      });
    if (req.method === 'GET' && path === '/props')
      return json(res, 200, {
        default_generation_settings: { n_ctx: this.#context.contextSize },
        total_slots: this.#slots.length,
      });
    if (req.method === 'POST' && path === '/tokenize')
      return json(res, 200, { tokens: this.#model.tokenize(String((body as { content?: unknown }).content ?? '')) });
    if (req.method === 'POST' && (path === '/chat/completions' || path === '/embeddings')) {
      this.workRequests++;
      const fault = this.#faults.shift();
      if (this.#latencyMs > 0) await new Promise((r) => setTimeout(r, this.#latencyMs));
      if (fault === 'http500')
        return json(res, 500, { error: { message: 'injected server error', type: 'server_error' } });
      if (path === '/embeddings') return this.#embeddings(body as { input?: unknown }, res, fault);
      return this.#chat(body as ChatRequest, res, fault);
    }
    json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
  }

  async #embeddings(body: { input?: unknown }, res: ServerResponse, fault: ServerFault | undefined): Promise<void> {
    if (!this.#embedder)
      return json(res, 404, { error: { message: 'this server has no embedding model', type: 'not_found' } });
    const input =
      typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : null;
    if (!input)
      return json(res, 400, {
        error: { message: '"input" must be a string or an array of strings', type: 'invalid_request_error' },
      });
    if (fault === 'stall') {
      // Headers, then silence: the client's own timeout (to the headers) does not catch this.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return this.#hold(res);
    }
    if (fault === 'dropStream' || fault === 'kill') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[');
      if (fault === 'kill') return this.kill();
      res.destroy();
      return;
    }
    const vectors = await this.#embedder.embed(input);
    // Unnormalised like many servers, and in reverse order: clients must match by `index`.
    const data = vectors
      .map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v, (x) => x * 3) }))
      .reverse();
    json(res, 200, {
      object: 'list',
      model: this.modelName,
      data,
      usage: { prompt_tokens: input.join('').length, total_tokens: input.join('').length },
    });
  }

  async #chat(request: ChatRequest, res: ServerResponse, fault: ServerFault | undefined): Promise<void> {
    const messages = request.messages ?? [];
    if (messages.length === 0)
      return json(res, 400, { error: { message: '"messages" is required', type: 'invalid_request_error' } });
    const schema =
      request.response_format?.type === 'json_schema' ? request.response_format.json_schema?.schema : undefined;
    let grammar: LlamaGrammar | undefined;
    try {
      grammar = schema ? await this.#grammar(schema) : undefined;
    } catch (error) {
      return json(res, 400, {
        error: {
          message: `response_format: ${error instanceof Error ? error.message : String(error)}`,
          type: 'invalid_request_error',
        },
      });
    }
    const recordKey = JSON.stringify([
      messages,
      schema ?? null,
      request.max_completion_tokens ?? request.max_tokens ?? null,
      request.temperature ?? 0,
      request.seed ?? null,
    ]);
    const recorded = fault === undefined ? this.#recording?.get(recordKey) : undefined;
    if (recorded) return this.#replayOnSlot(request, res, recorded);
    const abort = new AbortController();
    this.#inFlight.add(abort);
    res.on('close', () => abort.abort());
    const slot = await this.#pool.acquire();
    try {
      if (abort.signal.aborted) return;
      const history: ChatHistoryItem[] = [
        ...messages.filter((m) => m.role === 'system').map((m) => ({ type: 'system' as const, text: m.content })),
        ...messages.filter((m) => m.role === 'user').map((m) => ({ type: 'user' as const, text: m.content })),
        { type: 'model', response: [] },
      ];
      // Every request starts from an empty sequence, so a reply never depends on the one before.
      await slot.chat.sequence.clearHistory();
      const promptTokens = slot.chat.chatWrapper
        .generateContextState({ chatHistory: history })
        .contextText.tokenize(this.#model.tokenizer).length;
      const room = slot.chat.sequence.contextSize - promptTokens;
      if (room <= 0)
        return json(res, 400, {
          error: {
            message: `the prompt (${promptTokens} tokens) exceeds the context size (${slot.chat.sequence.contextSize})`,
            type: 'invalid_request_error',
          },
        });
      const maxTokens = Math.min(request.max_completion_tokens ?? request.max_tokens ?? room, room);
      const id = `chatcmpl-${this.workRequests}`;
      const stream = request.stream === true;
      const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
        id,
        object: 'chat.completion.chunk',
        created: 0,
        model: this.modelName,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      let sentChunks = 0;
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        sse(res, chunk({ role: 'assistant', content: '' }, null));
        if (fault === 'stall') return this.#hold(res);
      } else if (fault === 'stall') return this.#hold(res);
      let completionTokens = 0;
      let text = '';
      let cut = false;
      const response = await slot.chat.generateResponse(history, {
        maxTokens,
        temperature: request.temperature ?? 0,
        ...(request.seed !== undefined ? { seed: request.seed } : {}),
        ...(grammar ? { grammar } : {}),
        signal: abort.signal,
        stopOnAbortSignal: true,
        onResponseChunk: (c) => {
          completionTokens += c.tokens.length;
        },
        onTextChunk: (piece) => {
          if (cut || fault === 'invalidJson') return;
          text += piece;
          if (!stream) return;
          sse(res, chunk({ content: piece }, null));
          if (++sentChunks === 3 && (fault === 'dropStream' || fault === 'kill')) {
            cut = true;
            if (fault === 'kill') void this.kill();
            else res.destroy();
            abort.abort();
          }
        },
      });
      if (cut || abort.signal.aborted) return;
      if (fault === 'invalidJson') {
        text = 'not JSON {';
        if (stream) sse(res, chunk({ content: text }, null));
      }
      const finish = response.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      };
      this.#recording?.set(recordKey, { text, finish, promptTokens, completionTokens });
      this.#finish(res, { id, stream, text, finish, usage });
    } finally {
      this.#inFlight.delete(abort);
      this.#pool.release(slot);
    }
  }

  /** A recorded reply, after holding a slot for the simulated GPU's time, if any. */
  async #replayOnSlot(
    request: ChatRequest,
    res: ServerResponse,
    recorded: NonNullable<ReturnType<ReplyRecording['get']>>,
  ): Promise<void> {
    if (!this.#gpu) return this.#replay(request, res, recorded);
    const slot = await this.#pool.acquire();
    try {
      await this.#gpu.run(recorded.promptTokens, recorded.completionTokens);
    } finally {
      this.#pool.release(slot);
    }
    if (!res.destroyed) this.#replay(request, res, recorded);
  }

  #replay(request: ChatRequest, res: ServerResponse, recorded: NonNullable<ReturnType<ReplyRecording['get']>>): void {
    this.replayed++;
    const id = `chatcmpl-${this.workRequests}`;
    const stream = request.stream === true;
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      sse(res, {
        id,
        object: 'chat.completion.chunk',
        created: 0,
        model: this.modelName,
        choices: [{ index: 0, delta: { role: 'assistant', content: recorded.text }, finish_reason: null }],
      });
    }
    const usage = {
      prompt_tokens: recorded.promptTokens,
      completion_tokens: recorded.completionTokens,
      total_tokens: recorded.promptTokens + recorded.completionTokens,
    };
    this.#finish(res, { id, stream, text: recorded.text, finish: recorded.finish, usage });
  }

  /** Ends a reply: the last SSE events (finish reason, usage, `[DONE]`) or the whole JSON body. */
  #finish(
    res: ServerResponse,
    reply: {
      id: string;
      stream: boolean;
      text: string;
      finish: 'length' | 'stop';
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    },
  ): void {
    this.completions++;
    this.promptTokens += reply.usage.prompt_tokens;
    this.completionTokens += reply.usage.completion_tokens;
    const head = { id: reply.id, created: 0, model: this.modelName };
    if (reply.stream) {
      sse(res, {
        ...head,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: {}, finish_reason: reply.finish }],
      });
      sse(res, { ...head, object: 'chat.completion.chunk', choices: [], usage: reply.usage });
      res.end('data: [DONE]\n\n');
    } else {
      json(res, 200, {
        ...head,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: reply.finish }],
        usage: reply.usage,
      });
    }
  }

  /** Keeps the request open, sending nothing, until the client or {@link kill} closes it. */
  #hold(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => res.on('close', () => resolve()));
  }

  #grammar(schema: JsonSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.#grammars.get(key);
    if (!grammar) {
      const create = this.#runtime.llama.createGrammarForJsonSchema.bind(this.#runtime.llama) as (
        s: GbnfJsonSchema,
      ) => Promise<LlamaGrammar>;
      // The models llama-server runs have byte-level vocabularies that spell any string; the
      // fixture's has no token for many characters, and an enum literal holding one would leave
      // the sampler only its unknown token (node-llama-cpp then never settles the call). So enums
      // it cannot spell are left free, as they cost a real model nothing.
      const spells = (text: string) => this.#model.detokenize(this.#model.tokenize(text)) === text;
      grammar = create(withSpellableEnums(toGrammarSchema(schema), spells) as GbnfJsonSchema);
      grammar.catch(() => this.#grammars.delete(key));
      this.#grammars.set(key, grammar);
    }
    return grammar;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sse(res: ServerResponse, body: unknown): void {
  res.write(`data: ${JSON.stringify(body)}\n\n`);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? JSON.parse(text) : {};
}
