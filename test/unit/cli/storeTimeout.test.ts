import { writeFileSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { smallGraphTurtle } from '../../support/smallGraph.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';

/**
 * Issue 24 point 15 from the CLI: `polyhop store set --timeout` against a store that accepts
 * connections and never answers. Without the option the publish would wait the default 5 minutes
 * (and this test would run into vitest's limit); with it the command ends with the store, the limit
 * and the option named, and a non-zero exit.
 */
describe('polyhop store set --timeout, against a store that never answers', () => {
  let engine: Engine;
  let dataDir: string;
  let dispose: () => Promise<void>;
  let silent: Server;
  let base: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // reads the request, never writes a byte
    });
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    ({ engine, dataDir, dispose } = await tempEngine({ embedder: new NgramEmbedder(64) }));
    const file = join(dataDir, 'small.ttl');
    writeFileSync(file, smallGraphTurtle().turtle);
    await call(engine, 'kb:create', { name: 'small' });
    expect((await runJobToEnd(engine, 'rdf:import', { kb: 'small', inputPath: file })).error).toBeNull();
  });
  afterAll(async () => {
    await dispose();
    for (const s of sockets) s.destroy();
    silent.close();
  });

  it('store publish gives up after the limit set with --timeout, says so, and exits non-zero', async () => {
    const set = await polyhopInProcess(
      dataDir,
      ['store', 'set', '--kb', 'small', '--query-url', `${base}/sparql`, '--timeout', '2000', '--no-auto-sync'],
      { engine },
    );
    expect(set.code).toBe(0);
    expect(set.out).toContain('timeout: 2,000 ms per request');

    const published = await polyhopInProcess(dataDir, ['store', 'publish', '--kb', 'small'], { engine });
    expect(published.code).not.toBe(0);
    expect(published.err).toContain(`TIMEOUT: SPARQL store ${base}: no answer within 2000 ms`);
    expect(sockets.length).toBeGreaterThan(0); // it did reach the store: the limit, not a refusal, ended it
  }, 60_000);
});
