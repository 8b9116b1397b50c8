import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDetail, HistoryEntry, SparqlResult } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { createMcpServer, startMcpHttp, type McpHttpServer } from '../../../src-main/mcp.js';
import { E2E_CORPUS_PATHS, e2eModels } from '../../support/e2eCorpus.js';
import { call, repoRoot, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { WIFE_OF_KING } from '../qa/support/qaScript.js';

type DocumentPageRequest = { documentId: number; startOffset: number; endOffset: number };

/** The tool's JSON reply (the text content a client's model reads). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool's JSON, read as the client's model would
const replyOf = (result: unknown): any => JSON.parse(((result as CallToolResult).content[0] as { text: string }).text);

describe('MCP front door, as an MCP client calls it', () => {
  let engine: Engine;
  let dataDir: string;
  let dispose: () => Promise<void>;
  let client: Client;

  beforeAll(async () => {
    ({ engine, dataDir, dispose } = await tempEngine(e2eModels()));
    await call(engine, 'kb:create', { name: 'odyssey' });
    await call(engine, 'docs:add', { kb: 'odyssey', paths: [...E2E_CORPUS_PATHS] });
    expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(engine).connect(serverSide);
    client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(clientSide);
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await dispose();
  });

  it('lists the read-only tools and the KBs as resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'ask',
      'cited_page',
      'entity_card',
      'list_knowledge_bases',
      'search_entities',
      'search_passages',
      'sparql_query',
    ]);
    for (const t of tools.filter((t) => t.name !== 'ask')) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['polyhop://kb/odyssey']);
    const info = JSON.parse(
      ((await client.readResource({ uri: 'polyhop://kb/odyssey' })).contents[0] as { text: string }).text,
    );
    expect(info).toMatchObject({ name: 'odyssey', documentCount: 4 });
    expect(replyOf(await client.callTool({ name: 'list_knowledge_bases', arguments: {} }))).toEqual([
      expect.objectContaining({
        name: 'odyssey',
        documentCount: 4,
        entityCount: info.entityCount,
        tripleCount: info.tripleCount,
      }),
    ]);
  });

  it('finds an entity and reads its card, as the Api does', async () => {
    const found = replyOf(
      await client.callTool({ name: 'search_entities', arguments: { kb: 'odyssey', query: 'Penelope' } }),
    );
    const viaApi = await call<{ id: number; name: string }[]>(engine, 'graph:search', {
      kb: 'odyssey',
      query: 'Penelope',
      limit: 20,
    });
    expect(found).toEqual(viaApi);
    expect(found[0].name).toBe('Penelope');
    const card = replyOf(await client.callTool({ name: 'entity_card', arguments: { kb: 'odyssey', id: found[0].id } }));
    expect(card).toEqual(await call(engine, 'graph:entity', { kb: 'odyssey', id: found[0].id }));
  });

  it('answers with a strategy, citing passages at offsets that hold the cited text', async () => {
    const reply = replyOf(
      await client.callTool({ name: 'ask', arguments: { kb: 'odyssey', question: WIFE_OF_KING.it, strategy: 'dr' } }),
    );
    expect(reply.shortAnswer).toMatch(/Penelope/);
    expect(reply.answerLanguage).toBe('it');
    // The explained answer is the one the Api kept in the history, with its [n] citations.
    const [kept] = await call<HistoryEntry[]>(engine, 'qa:history', { kb: 'odyssey' });
    expect(reply.answer).toBe(kept!.answer.text);
    expect(reply.answer).toMatch(/Penelope.*\[\d+\]/s);
    expect(reply.citations.length).toBeGreaterThan(0);
    const sources = reply.citations.flatMap((c: { sources: unknown[] }) => c.sources);
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources as { documentId: number; chunkId: number; startOffset: number; endOffset: number }[]) {
      const { document, chunks } = await call<DocumentDetail>(engine, 'docs:get', { kb: 'odyssey', id: s.documentId });
      const chunk = chunks.find((c) => c.id === s.chunkId);
      expect(chunk, `chunk ${s.chunkId} of ${document.path}`).toBeDefined();
      expect([s.startOffset, s.endOffset]).toEqual([chunk!.startOffset, chunk!.endOffset]);
      // A plain-text file is its own text: it holds the cited passage at the cited offsets.
      if (document.path.endsWith('.txt'))
        expect(readFileSync(document.path, 'utf8').slice(s.startOffset, s.endOffset).trim()).toBe(chunk!.text.trim());
    }
  });

  it('ranks passages without generating, and refuses an update disguised as a query', async () => {
    const history = async () => (await call<unknown[]>(engine, 'qa:history', { kb: 'odyssey' })).length;
    const answerGraphs = async () => {
      const { rows } = await call<SparqlResult>(engine, 'sparql:query', {
        kb: 'odyssey',
        query: 'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }',
      });
      return Number(rows[0]!['n']);
    };
    const [historyBefore, graphsBefore] = [await history(), await answerGraphs()];
    const { passages } = replyOf(
      await client.callTool({ name: 'search_passages', arguments: { kb: 'odyssey', query: 'Penelope weaving' } }),
    );
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((p: { sources: unknown[] }) => p.sources.length > 0)).toBe(true);
    // Read-only, as its annotation says: no history entry, no answer graph.
    expect([await history(), await answerGraphs()]).toEqual([historyBefore, graphsBefore]);

    const count = replyOf(
      await client.callTool({
        name: 'sparql_query',
        arguments: { kb: 'odyssey', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' },
      }),
    );
    const before = Number(count.rows[0].n.value ?? count.rows[0].n);
    expect(before).toBeGreaterThan(0);
    const update = await client.callTool({
      name: 'sparql_query',
      arguments: { kb: 'odyssey', query: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }' },
    });
    expect(update.isError).toBe(true);
    const after = replyOf(
      await client.callTool({
        name: 'sparql_query',
        arguments: { kb: 'odyssey', query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' },
      }),
    );
    expect(Number(after.rows[0].n.value ?? after.rows[0].n)).toBe(before);
  });

  it('shows each passage it ranks on its page, as the Api does, and names one it cannot', async () => {
    const { passages } = replyOf(
      await client.callTool({ name: 'search_passages', arguments: { kb: 'odyssey', query: 'Penelope weaving' } }),
    );
    const sources = passages.flatMap((p: { sources: unknown[] }) => p.sources);
    expect(sources.length).toBeGreaterThan(0);
    for (const { documentId, startOffset, endOffset } of sources as DocumentPageRequest[]) {
      const page = replyOf(
        await client.callTool({ name: 'cited_page', arguments: { kb: 'odyssey', documentId, startOffset, endOffset } }),
      );
      expect(page).toEqual(await call(engine, 'docs:page', { kb: 'odyssey', id: documentId, startOffset, endOffset }));
      expect(page.startOffset + page.passage.start).toBe(startOffset);
      expect(page.passage.end).toBeGreaterThan(page.passage.start);
    }
    const missing = await client.callTool({
      name: 'cited_page',
      arguments: { kb: 'odyssey', documentId: 9999, startOffset: 0, endOffset: 10 },
    });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/NOT_FOUND: No document 9999/);
  });

  it('reports a bad request as the Api does, as a tool error', async () => {
    const missing = await client.callTool({ name: 'entity_card', arguments: { kb: 'no-such-kb', id: 1 } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/NOT_FOUND|no-such-kb/);
  });

  describe('over streamable HTTP on loopback', () => {
    let http: McpHttpServer;
    beforeAll(async () => {
      http = await startMcpHttp(engine);
    });
    afterAll(() => http.close());

    it('serves a client that sends the token, on 127.0.0.1 only', async () => {
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const remote = new Client({ name: 'http-assistant', version: '1.0.0' });
      await remote.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { Authorization: `Bearer ${http.token}` } },
        }),
      );
      expect(replyOf(await remote.callTool({ name: 'list_knowledge_bases', arguments: {} }))[0].name).toBe('odyssey');
      await remote.close();
    });

    it('refuses a request without the token, or with a foreign Host', async () => {
      const post = (headers: Record<string, string>): Promise<number> =>
        new Promise((resolve, reject) => {
          const req = request(
            http.url,
            {
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                Accept: 'application/json, text/event-stream',
                ...headers,
              },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
        });
      expect(await post({})).toBe(401);
      expect(await post({ Authorization: `Bearer ${'0'.repeat(64)}` })).toBe(401);
      expect(await post({ Authorization: `Bearer ${http.token}`, Host: 'attacker.example:80' })).toBe(403);
      expect(await post({ Authorization: `Bearer ${http.token}`, Origin: 'http://attacker.example' })).toBe(403);
    });
  });

  /** `polyhop mcp` run as a user runs it, over this suite's data directory. */
  const polyhopMcpArgs = (...options: string[]): string[] => [
    join(repoRoot, 'bin', 'polyhop.js'),
    '--data-dir',
    dataDir,
    '--models-dir',
    join(dataDir, 'models'),
    'mcp',
    ...options,
  ];

  it('`polyhop mcp` speaks MCP on stdio (nothing else on stdout) over the same data directory', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: polyhopMcpArgs(),
      stderr: 'pipe',
    });
    const stdio = new Client({ name: 'stdio-assistant', version: '1.0.0' });
    await stdio.connect(transport);
    expect(replyOf(await stdio.callTool({ name: 'list_knowledge_bases', arguments: {} }))).toEqual([
      expect.objectContaining({ name: 'odyssey', documentCount: 4 }),
    ]);
    await stdio.close();
  }, 120_000);

  it("`polyhop mcp --http` prints its loopback URL and this run's token, and serves a client that sends it", async () => {
    const child = spawn(process.execPath, polyhopMcpArgs('--http'), { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let out = '';
      const printed = await new Promise<RegExpExecArray>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += String(chunk);
          const match =
            /^Polyhop MCP server at (\S+)\nSend this run's token with every request: Authorization: Bearer ([0-9a-f]{64})\n/.exec(
              out,
            );
          if (match) resolve(match);
        });
        void exited.then((code) => reject(new Error(`polyhop mcp --http exited (${code}) having printed: ${out}`)));
        setTimeout(
          () => reject(new Error(`polyhop mcp --http printed no URL and token in 150 s: ${out}`)),
          150_000,
        ).unref();
      });
      const [, url, token] = printed;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const remote = new Client({ name: 'http-assistant', version: '1.0.0' });
      await remote.connect(
        new StreamableHTTPClientTransport(new URL(url!), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      expect(replyOf(await remote.callTool({ name: 'list_knowledge_bases', arguments: {} }))[0].name).toBe('odyssey');
      await remote.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0); // SIGTERM closes the server and ends the command
  }, 200_000);
});
