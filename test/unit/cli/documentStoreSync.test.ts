import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreStatus } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { startConformingStore } from '../../support/conformingStore.js';
import { call, tempEngine } from '../../support/tempEngine.js';
import { QaEmbedder } from '../qa/support/qaScript.js';
import { corpusLlm } from '../security/support/fullRun.js';

/**
 * Issue 24 point 10 for `polyhop rm` and `polyhop index`: removing a document or indexing changes
 * the KB's records, which starts
 * the automatic sync to its external store; exiting disposes the engine and cancels that sync, so
 * the command returns only once it has ended. One that did not wait returns with the sync's job
 * still running (its first request to the store not yet answered) and the graph never published.
 */
let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
let store: Awaited<ReturnType<typeof startConformingStore>>;

beforeAll(async () => {
  store = await startConformingStore();
  ({ engine, dataDir, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'shelf' });
  writeFileSync(join(dataDir, 'ithaca.txt'), 'Odysseus was the king of Ithaca.');
  // A new document is not a change the store is told of (nothing extracted yet): no sync starts.
  await call(engine, 'docs:add', { kb: 'shelf', paths: [join(dataDir, 'ithaca.txt')] });
  await call(engine, 'store:set', { kb: 'shelf', queryUrl: store.url, graphIri: 'http://example.org/graphs/shelf' });
  await call(engine, 'kb:create', { name: 'indexed' });
  writeFileSync(join(dataDir, 'troy.txt'), 'Priam was the king of Troy. Hector was his eldest son.');
  await call(engine, 'docs:add', { kb: 'indexed', paths: [join(dataDir, 'troy.txt')] });
  await call(engine, 'store:set', {
    kb: 'indexed',
    queryUrl: store.url,
    graphIri: 'http://example.org/graphs/indexed',
  });
});
afterAll(async () => {
  await dispose();
  await store.close();
});

describe('polyhop rm and index, with an auto-synced external store', () => {
  it('polyhop rm exits once the sync its removal started has ended', async () => {
    const before = await call<StoreStatus>(engine, 'store:show', { kb: 'shelf' });
    expect(before).toMatchObject({ jobId: null, sync: { publishedAt: null } });
    const removed = await polyhopInProcess(dataDir, ['rm', '1', '--kb', 'shelf'], { engine });
    expect(removed.code).toBe(0);
    expect(removed.err).toContain('Syncing the external store of "shelf"');
    const after = await call<StoreStatus>(engine, 'store:show', { kb: 'shelf' });
    expect(after).toMatchObject({ jobId: null, sync: { lastError: null, fullNeeded: false } });
    expect(after.sync?.publishedAt).not.toBeNull();
  });

  it('polyhop index exits once the sync its job started has ended', async () => {
    const indexed = await polyhopInProcess(dataDir, ['index', '--kb', 'indexed'], { engine });
    expect(indexed.err).toContain('Syncing the external store of "indexed"');
    expect(indexed.code).toBe(0);
    const after = await call<StoreStatus>(engine, 'store:show', { kb: 'indexed' });
    expect(after).toMatchObject({ jobId: null, sync: { lastError: null, fullNeeded: false } });
    expect(after.sync?.publishedAt).not.toBeNull();
  });
});
