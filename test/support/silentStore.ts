import { writeFileSync } from 'node:fs';
import { type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { NgramEmbedder } from './NgramEmbedder.js';
import { smallGraphTurtle } from './smallGraph.js';
import { call, runJobToEnd, tempEngine } from './tempEngine.js';

/** A TCP server that accepts connections and reads requests but never writes a byte (a hung store). */
export interface SilentStore {
  base: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): void;
}

export async function startSilentStore(): Promise<SilentStore> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    connections: () => sockets.length,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A temp engine with KB `small` holding {@link smallGraphTurtle}, the graph a store would receive. */
export async function engineWithSmallKb(): Promise<{ engine: Engine; dataDir: string; dispose: () => Promise<void> }> {
  const made = await tempEngine({ embedder: new NgramEmbedder(64) });
  const file = join(made.dataDir, 'small.ttl');
  writeFileSync(file, smallGraphTurtle().turtle);
  await call(made.engine, 'kb:create', { name: 'small' });
  expect((await runJobToEnd(made.engine, 'rdf:import', { kb: 'small', inputPath: file })).error).toBeNull();
  return made;
}
