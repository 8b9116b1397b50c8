import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import oxigraph from 'oxigraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreStatus } from '../../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../../src-main/engine/api/Engine.js';
import type { AnswerGraphRecord } from '../../../../src-main/engine/kb/AnswerGraphRepository.js';
import { SparqlStoreClient } from '../../../../src-main/engine/kb/store/SparqlStoreClient.js';
import { ANSWERS_GRAPH, syncAnswers } from '../../../../src-main/engine/kb/store/syncAnswers.js';
import { startConformingStore } from '../../../support/conformingStore.js';
import { NgramEmbedder } from '../../../support/NgramEmbedder.js';
import { call, runJobToEnd, tempEngine } from '../../../support/tempEngine.js';
import { QaEmbedder, WIFE_OF_KING } from '../../qa/support/qaScript.js';
import { corpusLlm } from '../../security/support/fullRun.js';

/**
 * Issue 24: answer graphs (each answer's PROV-O graph, in its own named graph) go to the external
 * store with the KB's graph, on a full publish and on a sync, and leave it when the KB no longer
 * has them. The store is the protocol-conforming double on Oxigraph (Virtuoso is lenient where it
 * is not); test/runtime/storeVirtuoso.test.ts runs the KB graph against a real Virtuoso.
 */
const PH = 'https://polyhop.app/ontology#';
const KB_GRAPH = 'http://example.org/graphs/letters';
const LETTERS = `@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:penelope rdfs:label "Penelope" ; ex:wifeOf ex:odysseus .
ex:odysseus rdfs:label "Odysseus" .
`;

let store: Awaited<ReturnType<typeof startConformingStore>>;
beforeAll(async () => {
  store = await startConformingStore();
});
afterAll(() => store?.close());

const named = (g: string) => oxigraph.namedNode(g);
/** Statements the store holds in graph `g`. */
const inGraph = (g: string) => store.store.match(null, null, null, named(g));
const answerNquads = (g: string, short: string) =>
  `<${g}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${PH}Answer> <${g}> .\n<${g}> <${PH}hasShortAnswer> ${JSON.stringify(short)} <${g}> .\n`;
const isStale = (g: string) =>
  store.store.match(named(g), named(`${PH}isStale`), null, named(g)).map((q) => q.object.value);

describe('answer graphs in the external store', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const file = join(mkdtempSync(join(tmpdir(), 'polyhop-answers-store-')), 'letters.ttl');

  beforeAll(async () => {
    writeFileSync(file, LETTERS);
    ({ engine, dispose } = await tempEngine({ embedder: new NgramEmbedder(64) }));
    await call(engine, 'kb:create', { name: 'letters' });
    expect((await runJobToEnd(engine, 'rdf:import', { kb: 'letters', inputPath: file })).error).toBeNull();
    await call(engine, 'store:set', { kb: 'letters', queryUrl: store.url, graphIri: KB_GRAPH, autoSync: false });
  });
  afterAll(() => dispose());

  /** Files an answer as the QA path does (its graph, citing document `documentId`); returns its graph IRI. */
  function answer(short: string, documentId: number): string {
    const { kb } = engine.kbs.get('letters');
    const historyId = kb.history.addHistory(`Who is ${short}?`, 'dr', '{}');
    const graphIri = `${kb.metadata.meta().baseIri}answer/${historyId}`;
    kb.answers.record(historyId, {
      graphIri,
      nquads: answerNquads(graphIri, short),
      sources: [{ documentId, documentHash: 'h', documentTitle: 'letters.ttl' }],
    });
    return graphIri;
  }

  it('a publish sends each answer into its own named graph, the KB graph unchanged; a sync sends a new or newly stale one', async () => {
    const first = answer('Penelope', 901);
    const published = await runJobToEnd(engine, 'store:publish', { kb: 'letters' });
    expect(published.error).toBeNull();
    const kbStatements = inGraph(KB_GRAPH).length;
    expect(kbStatements).toBeGreaterThan(0);
    expect(inGraph(first).map((q) => q.object.value)).toContain('Penelope');
    expect(isStale(first)).toEqual(['false']);
    expect(inGraph(KB_GRAPH).some((q) => q.subject.value === first)).toBe(false);

    const second = answer('Odysseus', 902);
    engine.kbs.get('letters').kb.answers.markStale([901], 'reindexed');
    const synced = await runJobToEnd(engine, 'store:sync', { kb: 'letters' });
    expect(synced.error).toBeNull();
    expect(synced.result).toMatchObject({ mode: 'incremental', answers: 2 });
    expect(inGraph(second).map((q) => q.object.value)).toContain('Odysseus');
    expect(isStale(first)).toEqual(['true']);
    expect(inGraph(first).some((q) => q.predicate.value === 'http://www.w3.org/ns/prov#wasInvalidatedBy')).toBe(true);
    expect(inGraph(KB_GRAPH).length).toBe(kbStatements);

    // Nothing changed: nothing is sent again.
    expect((await runJobToEnd(engine, 'store:sync', { kb: 'letters' })).result).toMatchObject({ answers: 0 });
    // A full publish sends them all again, to the same graphs.
    expect((await runJobToEnd(engine, 'store:publish', { kb: 'letters' })).result).toMatchObject({ answers: 2 });
    expect(inGraph(second).filter((q) => q.predicate.value === `${PH}hasShortAnswer`)).toHaveLength(1);
  });
});

describe('an answer given', () => {
  it('starts the auto-sync, which sends its graph', async () => {
    const { engine, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'asked' });
      await call(engine, 'store:set', { kb: 'asked', queryUrl: store.url, graphIri: `${KB_GRAPH}/asked` });
      const asked = await runJobToEnd(engine, 'qa:ask', {
        kb: 'asked',
        question: WIFE_OF_KING.en,
        strategy: 'llm-only',
        thread: 'new',
      });
      expect(asked.error).toBeNull();
      // The sync may have ended already; else it is let finish.
      const { jobId } = await call<StoreStatus>(engine, 'store:show', { kb: 'asked' });
      if (jobId) expect(await engine.jobs.settled(jobId)).toMatchObject({ status: 'done' });
      expect((await call<StoreStatus>(engine, 'store:show', { kb: 'asked' })).sync).toMatchObject({ lastError: null });
      const base = engine.kbs.get('asked').kb.metadata.meta().baseIri;
      const graphs = store.store
        .match(null, named('https://polyhop.app/store#answerOf'), named(`${KB_GRAPH}/asked`), named(ANSWERS_GRAPH))
        .map((q) => q.subject.value);
      expect(graphs).toEqual([`${base}answer/1`]);
      expect(inGraph(graphs[0]!).length).toBeGreaterThan(2);
    } finally {
      await dispose();
    }
  });
});

describe('syncAnswers', () => {
  const BASE = 'http://example.org/kb/';
  const client = () =>
    new SparqlStoreClient({
      queryUrl: store.url,
      updateUrl: store.url,
      graphStoreUrl: store.url,
      graphIri: `${BASE}graph`,
      auth: { kind: 'none' },
      batchQuads: 50_000,
      autoSync: true,
      requestTimeoutMs: 30_000,
    });
  const record = (historyId: number): AnswerGraphRecord => {
    const graphIri = `${BASE}answer/${historyId}`;
    return { historyId, graphIri, nquads: answerNquads(graphIri, `answer ${historyId}`), stale: null };
  };

  it("drops the graph of an answer the KB no longer has (a KB restored from an older backup), and only this KB's", async () => {
    const otherAnswer = 'http://example.org/other/answer/1';
    store.store.update(
      `INSERT DATA { GRAPH <${otherAnswer}> { <${otherAnswer}> <${PH}isStale> "false" } GRAPH <${ANSWERS_GRAPH}> { <${otherAnswer}> <https://polyhop.app/store#answerOf> <http://example.org/other/graph> ; <https://polyhop.app/store#stale> "false" } }`,
    );
    const answers = [record(1), record(2), record(3)];
    expect(
      await syncAnswers({ baseIri: BASE, answerGraphs: () => answers }, client(), { full: false, answersPerUpdate: 2 }),
    ).toEqual({ sent: 3, dropped: 0 });
    expect(
      await syncAnswers({ baseIri: BASE, answerGraphs: () => [answers[0]!] }, client(), {
        full: false,
        answersPerUpdate: 2,
      }),
    ).toEqual({ sent: 0, dropped: 2 });
    expect(inGraph(`${BASE}answer/1`).length).toBeGreaterThan(0);
    expect(inGraph(`${BASE}answer/2`)).toEqual([]);
    expect(inGraph(`${BASE}answer/3`)).toEqual([]);
    expect(store.store.match(named(`${BASE}answer/2`), null, null, named(ANSWERS_GRAPH))).toEqual([]);
    expect(inGraph(otherAnswer).length).toBe(1);
  });
});
