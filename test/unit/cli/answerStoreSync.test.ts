import { Readable } from 'node:stream';
import oxigraph from 'oxigraph';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreStatus } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { ANSWERS_GRAPH } from '../../../src-main/engine/kb/store/syncAnswers.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { startConformingStore } from '../../support/conformingStore.js';
import { call, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';

/**
 * Issue 24 point 10 for answers: `polyhop ask` and `polyhop chat` do not exit before the answer
 * graphs their questions made are in the KB's auto-synced external store (exiting disposes the
 * engine, which cancels the sync). The store holds every request until the question's job has
 * ended, so a command that does not wait returns while the sync is still in flight.
 */
const KB_GRAPH = 'http://example.org/graphs/asked';
let engine: Engine;
let dataDir: string;
let dispose: () => Promise<void>;
let store: Awaited<ReturnType<typeof startConformingStore>>;
let open: Promise<void> = Promise.resolve();
let release: () => void = () => undefined;

beforeAll(async () => {
  store = await startConformingStore({ hold: () => open });
  ({ engine, dataDir, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'asked' });
  await call(engine, 'store:set', { kb: 'asked', queryUrl: store.url, graphIri: KB_GRAPH });
  // Every ended question lets the store answer.
  engine.onEvent((event) => {
    if (event.name === 'job:finished' && event.payload.kind === 'ask') release();
  });
});
afterAll(async () => {
  await dispose();
  await store.close();
});
beforeEach(() => {
  open = new Promise((resolve) => (release = resolve));
});

/** The answer graphs the store has on record for the KB. */
const answersInStore = (): string[] =>
  store.store
    .match(
      null,
      oxigraph.namedNode('https://polyhop.app/store#answerOf'),
      oxigraph.namedNode(KB_GRAPH),
      oxigraph.namedNode(ANSWERS_GRAPH),
    )
    .map((q) => q.subject.value)
    .sort();

const answerGraph = (historyId: number): string =>
  `${engine.kbs.get('asked').kb.metadata.meta().baseIri}answer/${historyId}`;

describe('the answer graph of a CLI question, in the external store', () => {
  it('polyhop ask exits once it is there', async () => {
    const asked = await polyhopInProcess(dataDir, ['ask', WIFE_OF_KING.en, '--kb', 'asked', '--strategy', 'llm-only'], {
      engine,
    });
    expect(asked.code).toBe(0);
    expect(answersInStore()).toEqual([answerGraph(1)]);
    expect(asked.err).toContain('Syncing the external store of "asked"');
  });

  it('polyhop chat exits once every answer of the conversation is there', async () => {
    const input = Readable.from(['/strategy llm-only\n', `${WIFE_OF_KING.en}\n`, '/quit\n']);
    const chat = await polyhopInProcess(dataDir, ['chat', '--kb', 'asked'], { engine, input });
    expect(chat.code).toBe(0);
    expect(answersInStore()).toEqual([answerGraph(1), answerGraph(2)]);
    expect((await call<StoreStatus>(engine, 'store:show', { kb: 'asked' })).sync).toMatchObject({ lastError: null });
  });
});
