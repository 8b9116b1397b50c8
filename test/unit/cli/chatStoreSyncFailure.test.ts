import { Readable } from 'node:stream';
import oxigraph from 'oxigraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { ANSWERS_GRAPH } from '../../../src-main/engine/kb/store/syncAnswers.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { startConformingStore } from '../../support/conformingStore.js';
import { call, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';

/**
 * Issue 24: a store sync that fails during `polyhop chat` (the answers are synced in the
 * background while the next question runs) is said in the conversation when it happens, and a
 * conversation whose answers are still not in the store when it ends exits 1 saying so, where it
 * used to exit 0 with the failure visible only in `polyhop store show`.
 */
let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
let down = true;
let store: Awaited<ReturnType<typeof startConformingStore>>;

beforeAll(async () => {
  store = await startConformingStore({ down: () => down });
  // The second question stands alone: the rewrite keeps it as it is, as a model following the prompt does.
  const keepsStandalone = { prompt: 'qa/rewrite', reply: (v: Record<string, string>) => ({ standalone: v.followUp }) };
  ({ engine, dataDir, dispose } = await tempEngine({ llm: corpusLlm([keepsStandalone]), embedder: new QaEmbedder() }));
});
afterAll(async () => {
  await dispose();
  await store.close();
});

/** Resolves once a sync of `kb`'s store has failed. */
const syncFailed = (kb: string): Promise<void> =>
  new Promise((resolve) => {
    const stop = engine.onEvent((event) => {
      if (event.name !== 'job:finished' || event.payload.kind !== 'store' || event.payload.status !== 'failed') return;
      if (engine.jobs.get(event.payload.jobId)?.kb !== kb) return;
      stop();
      resolve();
    });
  });

/** A conversation: the first question, then (once the sync of its answer failed) `after()` and the remaining lines. */
async function* typed(kb: string, first: string, after: () => void, rest: string[]): AsyncGenerator<string> {
  const failed = syncFailed(kb);
  yield `/strategy llm-only\n`;
  yield `${first}\n`;
  await failed;
  after();
  for (const line of rest) yield `${line}\n`;
}

const answersInStore = (kbGraph: string): number =>
  store.store.match(
    null,
    oxigraph.namedNode('https://polyhop.app/store#answerOf'),
    oxigraph.namedNode(kbGraph),
    oxigraph.namedNode(ANSWERS_GRAPH),
  ).length;

async function kbWithStore(name: string): Promise<string> {
  const graphIri = `http://example.org/graphs/${name}`;
  await call(engine, 'kb:create', { name });
  await call(engine, 'store:set', { kb: name, queryUrl: store.url, graphIri });
  return graphIri;
}

describe('polyhop chat with a store that fails', () => {
  it('says so at once, and exits 0 once a later sync sent every answer', async () => {
    const graph = await kbWithStore('recovers');
    down = true;
    const input = Readable.from(typed('recovers', WIFE_OF_KING.en, () => (down = false), [WIFE_OF_KING.it, '/quit']));
    const chat = await polyhopInProcess(dataDir, ['chat', '--kb', 'recovers'], { engine, input });
    expect(chat.err).toMatch(/\(store sync failed: .*HTTP 503.*the next answer's sync tries again/);
    expect(chat.code, chat.err).toBe(0);
    expect(answersInStore(graph)).toBe(2);
  });

  it('exits 1 when the store still has not got the answers at the end', async () => {
    await kbWithStore('stays-down');
    down = true;
    const input = Readable.from(typed('stays-down', WIFE_OF_KING.en, () => undefined, ['/quit']));
    const chat = await polyhopInProcess(dataDir, ['chat', '--kb', 'stays-down'], { engine, input });
    expect(chat.code).toBe(1);
    expect(chat.err).toMatch(/the last store sync failed: .*HTTP 503.*polyhop store sync --kb "stays-down"/);
  });
});
