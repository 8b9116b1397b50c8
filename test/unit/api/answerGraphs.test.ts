import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, HistoryEntry, SparqlResult, Thread } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES } from '../../support/corpusScript.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { corpusLlm } from '../security/support/fullRun.js';
import { QaEmbedder, WIFE_OF_KING } from '../qa/support/qaScript.js';

/** Answers as data through the Api: each answer's PROV-O graph in the SPARQL view, in the export on request, stale when its sources change. */
let engine: Engine;
let dispose: () => Promise<void>;
const out = mkdtempSync(join(tmpdir(), 'polyhop-answers-'));
const PREFIXES = 'PREFIX ph: <https://polyhop.app/ontology#> PREFIX prov: <http://www.w3.org/ns/prov#>';

beforeAll(async () => {
  ({ engine, dispose } = await tempEngine({ llm: corpusLlm(), embedder: new QaEmbedder() }));
  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  expect((await runJobToEnd(engine, 'index:start', { kb: 'odyssey' })).status).toBe('done');
});
afterAll(() => dispose());

async function ask(question: string, strategy = 'dr'): Promise<Answer> {
  const job = await runJobToEnd(engine, 'qa:ask', { kb: 'odyssey', question, strategy, thread: 'new' });
  expect(job.error).toBeNull();
  return job.result as Answer;
}
const sparql = (query: string) => call<SparqlResult>(engine, 'sparql:query', { kb: 'odyssey', query });
const citedDocuments = (answer: Answer): number[] => [
  ...new Set(answer.evidence.flatMap((e) => e.citations.map((c) => c.documentId))),
];
const turnOf = async (answer: Answer) =>
  (await call<Thread>(engine, 'threads:get', { kb: 'odyssey', thread: answer.thread!.id })).turns[0]!;
const historyOf = async (answer: Answer) =>
  (await call<HistoryEntry[]>(engine, 'qa:history', { kb: 'odyssey', search: answer.question }))[0]!;
async function exportNQuads(answers?: boolean): Promise<string> {
  const outputPath = join(out, `kb-${String(answers)}.nq`);
  const job = await runJobToEnd(engine, 'rdf:export', {
    kb: 'odyssey',
    format: 'nquads',
    scope: { kind: 'all' },
    outputPath,
    ...(answers === undefined ? {} : { answers }),
  });
  expect(job.error).toBeNull();
  return readFileSync(outputPath, 'utf8');
}

describe('answers as data', () => {
  let first: Answer;

  it('finds an answer by its question with SPARQL over the view, in its own named graph', async () => {
    first = await ask(WIFE_OF_KING.en);
    expect(citedDocuments(first).length).toBeGreaterThan(0);
    const found = await sparql(`${PREFIXES}
      SELECT ?g ?strategy ?short ?tokens WHERE { GRAPH ?g {
        ?g a ph:Answer ; ph:answers ?q ; ph:hasShortAnswer ?short ; prov:wasGeneratedBy ?run .
        ?q ph:hasText ?text . FILTER (str(?text) = ${JSON.stringify(WIFE_OF_KING.en)})
        ?run ph:hasStrategy ?strategy ; ph:hasPromptTokens ?tokens .
      } }`);
    expect(found.rows).toHaveLength(1);
    expect(found.rows[0]).toMatchObject({
      strategy: 'dr',
      short: first.shortAnswer,
      tokens: String(first.usage.promptTokens),
    });
    expect(found.rows[0]!.g).toMatch(/\/answer\/\d+$/);
    // The KB's own statements stay in the default graph: an answer is not a document.
    const documents = await sparql(`${PREFIXES} SELECT (COUNT(?d) AS ?n) WHERE { ?d a ph:Document }`);
    expect(documents.rows[0]!.n).toBe(String(CORPUS_FILES.length));
  });

  it('exports the answer graphs only when asked', async () => {
    const plain = await exportNQuads();
    expect(plain).not.toContain('/answer/');
    expect(await exportNQuads(false)).toBe(plain);
    const withAnswers = await exportNQuads(true);
    const quads = new Parser({ format: 'N-Quads' }).parse(withAnswers);
    const answerGraphs = new Set(quads.filter((q) => q.graph.value.includes('/answer/')).map((q) => q.graph.value));
    expect(answerGraphs.size).toBe(1);
    expect(quads.filter((q) => q.graph.termType === 'DefaultGraph')).toHaveLength(
      new Parser({ format: 'N-Quads' }).parse(plain).length,
    );
  });

  it('marks answers stale in the thread, the history and the RDF when a cited document is re-indexed, then removed', async () => {
    expect((await turnOf(first)).stale).toBeNull();
    const reindexed = citedDocuments(first)[0]!;
    await call(engine, 'docs:reindex', { kb: 'odyssey', id: reindexed });
    expect((await turnOf(first)).stale).toMatchObject({ reason: 'reindexed', documentId: reindexed });
    expect((await historyOf(first)).stale).toMatchObject({ reason: 'reindexed', documentId: reindexed });

    const second = await ask('Who was the king of Ithaca?', 'vector');
    const removed = citedDocuments(second).find((id) => id !== reindexed);
    expect(removed).toBeDefined();
    expect((await historyOf(second)).stale).toBeNull();
    await call(engine, 'docs:remove', { kb: 'odyssey', id: removed });
    expect((await turnOf(second)).stale).toMatchObject({ reason: 'removed', documentId: removed });
    // The first answer keeps the reason it went stale for.
    expect((await turnOf(first)).stale?.reason).toBe('reindexed');

    const stale = await sparql(`${PREFIXES}
      SELECT ?g ?reason ?doc WHERE { GRAPH ?g { ?g ph:isStale true ; prov:wasInvalidatedBy ?i .
        ?i ph:hasStaleReason ?reason ; prov:used ?doc } } ORDER BY ?g`);
    expect(stale.rows.map((r) => [r.reason, r.doc!.split('/').pop()])).toEqual([
      ['reindexed', String(reindexed)],
      ['removed', String(removed)],
    ]);
  });
});
