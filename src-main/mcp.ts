/**
 * `polyhop mcp`: the Model Context Protocol front door, so other local apps (a desktop
 * assistant, an editor) can use a knowledge base. A thin layer over the same Api as the window,
 * browser mode and the CLI: each tool is one Api call, validated by the Api's own schemas, and
 * no tool can do more than that call does (SPARQL is read-only here whatever the request says;
 * an answer is kept in the KB's history, as the Ask screen keeps it).
 *
 * Offline: stdio, or streamable HTTP on 127.0.0.1 only, with a per-run token as in browser mode.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  STRATEGIES,
  type Answer,
  type KbSummary,
  type Method,
  type Request,
  type Responses,
} from './engine/api/contract.js';
import type { Engine } from './engine/api/Engine.js';
import { bearerToken, isOwnOrigin, tokenMatcher } from './loopbackGuard.js';

const SERVER_INFO = { name: 'polyhop', version: '0.1.0' };

class ApiError extends Error {}

/** One Api call; an `ok: false` reply becomes an error the tool returns as text. */
async function call<M extends Method>(engine: Engine, method: M, request: Request<M>): Promise<Responses[M]> {
  const reply = await engine.call(method, request);
  if (!reply.ok) throw new ApiError(`${reply.error.code}: ${reply.error.message}`);
  return reply.value as Responses[M];
}

/** Starts a job and waits for its result (listening before the start, so a quick job is not missed). */
async function runJob<M extends Method>(engine: Engine, method: M, request: Request<M>): Promise<unknown> {
  const finished = new Map<string, { status: string; result: unknown; message: string | undefined }>();
  const waiting = new Map<string, (value: void) => void>();
  const off = engine.onEvent((event) => {
    if (event.name !== 'job:finished') return;
    const { jobId, status, result, error } = event.payload;
    finished.set(jobId, { status, result, message: error?.message });
    waiting.get(jobId)?.();
  });
  try {
    const { jobId } = (await call(engine, method, request)) as { jobId: string };
    if (!finished.has(jobId)) await new Promise<void>((resolve) => waiting.set(jobId, resolve));
    const end = finished.get(jobId)!;
    if (end.status !== 'done') throw new ApiError(end.message ?? `${method} ${end.status}`);
    return end.result;
  } finally {
    off();
  }
}

const json = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: Array.isArray(value) ? { items: value } : (value as Record<string, unknown>),
});

/** Api failures are the tool's answer (the client's model reads them), not a protocol error. */
async function tool(body: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return json(await body());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { content: [{ type: 'text', text: error.message }], isError: true };
  }
}

const citationsOf = (answer: Answer) =>
  answer.evidence.map((e, i) => ({
    n: i + 1,
    kind: e.kind,
    label: e.label,
    text: e.text,
    sources: e.citations.map((c) => ({
      document: c.documentTitle,
      documentId: c.documentId,
      chunkId: c.chunkId,
      page: c.page,
      startOffset: c.startOffset,
      endOffset: c.endOffset,
    })),
  }));

const kb = z.string().min(1).max(200).describe('knowledge base name (see list_knowledge_bases)');

/** The tools and resources, over one engine; a new server per HTTP request shares the engine. */
export function createMcpServer(engine: Engine): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {}, resources: {} } });
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'list_knowledge_bases',
    {
      title: 'List knowledge bases',
      description: 'The knowledge bases with their document, entity and triple counts.',
      annotations: readOnly,
    },
    () =>
      tool(async () =>
        (await call(engine, 'kb:list', {})).map(
          ({ name, description, documentCount, entityCount, tripleCount }: KbSummary) => ({
            name,
            description,
            documentCount,
            entityCount,
            tripleCount,
          }),
        ),
      ),
  );

  server.registerTool(
    'search_entities',
    {
      title: 'Search entities',
      description: 'Entities of the knowledge graph whose names match the query, with their type and summary.',
      inputSchema: {
        kb,
        query: z.string().min(1).max(1000),
        type: z.string().max(200).optional(),
        limit: z.number().int().positive().max(100).default(20),
      },
      annotations: readOnly,
    },
    ({ kb, query, type, limit }) =>
      tool(() => call(engine, 'graph:search', { kb, query, limit, ...(type ? { type } : {}) })),
  );

  server.registerTool(
    'search_passages',
    {
      title: 'Search passages',
      description:
        'Passages of the documents ranked for the query (no generation), each with its document, page and character offsets.',
      inputSchema: { kb, query: z.string().min(1).max(4000) },
      annotations: readOnly,
    },
    ({ kb, query }) =>
      tool(async () => {
        const answer = (await runJob(engine, 'qa:ask', {
          kb,
          question: query,
          strategy: 'vector',
          retrievalOnly: true,
          // A search is not an answer: nothing goes to the history or the answers' graphs.
          keep: false,
        })) as Answer;
        return { query, passages: citationsOf(answer) };
      }),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask',
      description:
        'Answers a question over the knowledge base with a strategy ' +
        '(dr: MDER-DR, hyp: HyP-KGRAG, dapt: DaPT, vector, llm-only): ' +
        'the short answer, the explained answer with [n] citations, and the cited sources.',
      inputSchema: {
        kb,
        question: z.string().min(1).max(4000),
        strategy: z.enum(STRATEGIES).default('dr'),
        answerLanguage: z
          .string()
          .regex(/^[a-z]{2,3}$/)
          .optional()
          .describe('ISO 639 code; default: the question language'),
      },
      annotations: { ...readOnly, readOnlyHint: false, destructiveHint: false },
    },
    ({ kb, question, strategy, answerLanguage }) =>
      tool(async () => {
        const answer = (await runJob(engine, 'qa:ask', {
          kb,
          question,
          strategy,
          retrievalOnly: false,
          ...(answerLanguage ? { answerLanguage } : {}),
        })) as Answer;
        return {
          shortAnswer: answer.shortAnswer ?? '',
          answer: answer.text,
          answerLanguage: answer.answerLanguage,
          strategy: answer.strategy,
          citations: citationsOf(answer),
        };
      }),
  );

  server.registerTool(
    'sparql_query',
    {
      title: 'SPARQL query',
      description:
        'A read-only SPARQL 1.1 query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the knowledge base as RDF (the MDER ontology).',
      inputSchema: {
        kb,
        query: z.string().min(1).max(100_000),
        maxRows: z.number().int().positive().max(10_000).default(1000),
      },
      annotations: readOnly,
    },
    ({ kb, query, maxRows }) =>
      tool(() =>
        call(engine, 'sparql:query', { kb, query, maxRows, allowUpdate: false, timeoutMs: 10_000, target: 'view' }),
      ),
  );

  server.registerTool(
    'entity_card',
    {
      title: 'Entity card',
      description: 'One entity: its summary, aliases, the triples in and out, and the passages it was read from.',
      inputSchema: { kb, id: z.number().int().positive().describe('entity id from search_entities') },
      annotations: readOnly,
    },
    ({ kb, id }) => tool(() => call(engine, 'graph:entity', { kb, id })),
  );

  server.registerTool(
    'cited_page',
    {
      title: 'Cited page',
      description:
        'The page a cited passage is on (a document without pages: its whole text), ' +
        "with the passage's offsets on it, so the citation can be shown at its source.",
      inputSchema: {
        kb,
        documentId: z.number().int().positive().describe("a source's documentId (from ask or search_passages)"),
        startOffset: z.number().int().nonnegative().describe("the source's startOffset"),
        endOffset: z.number().int().nonnegative().describe("the source's endOffset"),
      },
      annotations: readOnly,
    },
    ({ kb, documentId, startOffset, endOffset }) =>
      tool(() => call(engine, 'docs:page', { kb, id: documentId, startOffset, endOffset })),
  );

  server.registerResource(
    'knowledge-base',
    new ResourceTemplate('polyhop://kb/{name}', {
      list: async () => ({
        resources: (await call(engine, 'kb:list', {})).map((k) => ({
          uri: `polyhop://kb/${encodeURIComponent(k.name)}`,
          name: k.name,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Knowledge base',
      description: 'A knowledge base: counts, models, calibration, languages.',
      mimeType: 'application/json',
    },
    async (uri, { name }) => {
      const info = await call(engine, 'kb:info', { kb: decodeURIComponent(String(name)) });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(info, null, 2) }] };
    },
  );

  return server;
}

/** `polyhop mcp`: serves on stdin/stdout until the client closes it. */
export async function runMcpStdio(engine: Engine): Promise<void> {
  const server = createMcpServer(engine);
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
}

export interface McpHttpServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** `polyhop mcp --http`: streamable HTTP (stateless) on 127.0.0.1, every request with the token. */
export async function startMcpHttp(
  engine: Engine,
  options: { port?: number; token?: string } = {},
): Promise<McpHttpServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const tokenMatches = tokenMatcher(token);
  let port = 0;
  const refuse = (res: ServerResponse, status: number, message: string): void => {
    res
      .writeHead(status, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
  };
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!isOwnOrigin(req, port)) return refuse(res, 403, 'Foreign Host or Origin');
    if (!tokenMatches(bearerToken(req))) return refuse(res, 401, 'Missing or bad token');
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp')
      return refuse(res, 404, 'Not found: the endpoint is /mcp');
    const server = createMcpServer(engine);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        console.error('[polyhop] MCP request failed:', error);
        if (!res.headersSent) refuse(res, 500, 'Internal error');
      });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    token,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
