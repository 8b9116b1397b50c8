import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STRATEGIES,
  type Answer,
  type DocumentPage,
  type JobProgress,
  type KbInfo,
} from '../../src-main/engine/api/contract.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import type { IndexingResult } from '../../src-main/engine/mder/IndexingJob.js';
import type { EndpointConfig } from '../../src-main/engine/models/endpoints/EndpointConfig.js';
import { TransformersEmbedder } from '../../src-main/engine/models/TransformersEmbedder.js';
import { tinyBertDir } from '../fixtures/tinyBert.js';
import { tinyLlamaPath } from '../fixtures/tinyLlama.js';
import { OpenAiTestServer } from '../support/openAiServer.js';
import { call, runJobToEnd, tempEngine } from '../support/tempEngine.js';

// The whole product with its models on OpenAI-compatible servers (the test-side server runs the
// fixture GGUF and the ONNX embedder), driven through the Api as apiPipeline.test.ts drives it
// with local models: index the multilingual corpus, answer with every strategy. Then the same
// job over two servers, one of them killed mid-job: nothing is lost and the KB is the one the
// single-server run built. One slot per server, one unit at a time and temperature 0 make each
// reply the same whichever server gives it.
const KB = 'odyssey';
const QUESTION = 'Chi era la moglie del re di Itaca?';
const CORPUS = join(import.meta.dirname, '../support/corpus');
const SETTINGS = {
  concurrency: 1,
  strategyParams: {
    'shared.stepMaxTokens': 1024,
    'shared.answerMaxTokens': 24,
    'shared.evidenceMaxTokens': 600,
    'hyp.maxCandidates': 10,
  },
};

let a: OpenAiTestServer;
let b: OpenAiTestServer;
let embedder: TransformersEmbedder;
let docsDir: string;
const cleanups: (() => Promise<void>)[] = [];

const endpoints = (servers: Record<string, OpenAiTestServer>): EndpointConfig[] =>
  Object.entries(servers).flatMap(([id, s]) => [
    { id: `${id}-gen`, role: 'generation' as const, baseUrl: s.baseUrl, model: s.modelName, concurrency: 1 },
    { id: `${id}-emb`, role: 'embedding' as const, baseUrl: s.baseUrl, model: s.modelName, concurrency: 1 },
  ]);

/** An engine whose models are the given servers, with the corpus indexed; `during` sees the job's progress. */
async function indexOver(servers: Record<string, OpenAiTestServer>, during?: (p: JobProgress) => void) {
  const { engine, dispose, dataDir } = await tempEngine();
  cleanups.push(dispose);
  await call(engine, 'system:setSettings', { settings: { ...SETTINGS, endpoints: endpoints(servers) } });
  await call(engine, 'kb:create', { name: KB, description: 'Odyssey in four languages' });
  const paths = readdirSync(docsDir).map((f) => join(docsDir, f));
  const added = await call<{ added: unknown[]; errors: unknown[] }>(engine, 'docs:add', { kb: KB, paths });
  expect(added.errors).toEqual([]);
  const stages = new Set<string>();
  const off = engine.onEvent((e) => {
    if (e.name !== 'job:progress' || e.payload.kind !== 'index') return;
    stages.add((e.payload as JobProgress).stage);
    during?.(e.payload as JobProgress);
  });
  const job = await runJobToEnd(engine, 'index:start', { kb: KB });
  off();
  expect(job.error).toBeNull();
  expect(job.status).toBe('done');
  return { engine, dataDir, stages, result: job.result as IndexingResult & { ingestFailures: unknown[] } };
}

/** Failures without what a second server changes: the endpoint that answered, and wall-clock durations. */
function sameFailures(failures: readonly unknown[]): unknown {
  return JSON.parse(JSON.stringify(failures), (key, value: unknown) =>
    key === 'endpoint' || key === 'durationMs' ? undefined : value,
  );
}

/** The KB as Turtle: everything indexed, in a stable order. */
async function dump(engine: Engine, dataDir: string): Promise<string> {
  const out = join(dataDir, 'dump.ttl');
  const job = await runJobToEnd(engine, 'rdf:export', {
    kb: KB,
    format: 'turtle',
    scope: { kind: 'all' },
    outputPath: out,
  });
  expect(job.error).toBeNull();
  // The KB's IRI carries a random id per KB; the rest is what indexing built.
  return readFileSync(out, 'utf8').replace(/urn:polyhop:kb:[^/>]+/g, 'urn:polyhop:kb:KB');
}

beforeAll(async () => {
  const [modelPath, bertDir] = await Promise.all([tinyLlamaPath(), tinyBertDir()]);
  embedder = await TransformersEmbedder.create({ modelDir: bertDir, threads: 1 });
  [a, b] = await Promise.all([
    OpenAiTestServer.start({ modelPath, embedder }),
    OpenAiTestServer.start({ modelPath, embedder }),
  ]);
  docsDir = mkdtempSync(join(tmpdir(), 'polyhop-endpoint-docs-'));
  for (const f of readdirSync(CORPUS).filter((f) => f !== 'README.md')) copyFileSync(join(CORPUS, f), join(docsDir, f));
});

afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
  await a?.close();
  await b?.close();
  await embedder?.dispose();
  if (docsDir) rmSync(docsDir, { recursive: true, force: true });
});

describe('the product with its models on inference servers', () => {
  let single: Awaited<ReturnType<typeof indexOver>>;

  it('indexes the multilingual corpus through every stage over one server', async () => {
    single = await indexOver({ a });
    expect([...single.stages]).toEqual([
      'ingest',
      'preprocess',
      'map',
      'disambiguate',
      'enrich',
      'reduce',
      'embed',
      'rdf',
    ]);
    expect(single.result.ingestFailures).toEqual([]);
    for (const f of single.result.failures)
      expect(f.code, `${f.stage} ${f.unit}: ${f.message}`).toMatch(/^(LLM_OUTPUT_INVALID|MODEL_ERROR)$/);
    for (const stage of ['preprocess', 'map'] as const)
      expect(single.result.stages[stage]!.calls, stage).toBeGreaterThan(0);
    expect(a.completions).toBeGreaterThan(0);

    const docs = await call<DocumentPage>(single.engine, 'docs:list', { kb: KB });
    expect(docs.total).toBe(4);
    expect(new Set(docs.rows.map((d) => d.language))).toEqual(new Set(['en', 'it', 'fr', 'es']));
    const info = await call<KbInfo>(single.engine, 'kb:info', { kb: KB });
    expect(info.embedder).toMatchObject({ dimension: 64 });
    expect(info.embedder?.identity).toMatch(/^openai:tiny-llama:/);
    // The job's token accounting comes from the server's `usage` (replies that failed their schema
    // are not in the stages' totals, so the server may have reported more: since batched entries
    // must name their item, the random-weight model's replies fail more often, and the stages
    // counted 0.76 of the server's prompt tokens on this run; counting failed replies is open work).
    const stages = Object.values(single.result.stages);
    const prompt = stages.reduce((n, s) => n + (s?.promptTokens ?? 0), 0);
    expect(prompt).toBeGreaterThan(0.7 * a.promptTokens);
    expect(prompt).toBeLessThanOrEqual(a.promptTokens);
    expect(stages.reduce((n, s) => n + (s?.completionTokens ?? 0), 0)).toBeLessThanOrEqual(a.completionTokens);
    // The Models screen's view: both roles up on server a, calls counted.
    const status = single.engine.models.endpointStatus();
    expect(status.map((s) => [s.id, s.health, s.servedModel])).toEqual([
      ['a-gen', 'up', 'tiny-llama'],
      ['a-emb', 'up', 'tiny-llama'],
    ]);
    expect(status.every((s) => s.calls > 0 && s.failures === 0 && s.inFlight === 0)).toBe(true);
  }, 900_000);

  it.each(STRATEGIES)(
    '%s answers over the server',
    async (strategy) => {
      const job = await runJobToEnd(single.engine, 'qa:ask', { kb: KB, question: QUESTION, strategy });
      expect(job.error).toBeNull();
      expect(job.status).toBe('done');
      const answer = job.result as Answer;
      expect(answer).toMatchObject({ question: QUESTION, strategy, retrievalOnly: false, questionLanguage: 'it' });
      expect(answer.text.trim()).not.toBe('');
      expect(answer.usage.llmCalls).toBeGreaterThan(0);
      expect(answer.trace.at(-1)!.step).toBe('answer');
    },
    300_000,
  );

  it('killing one of two servers mid-job loses nothing: the KB equals the one-server run’s', async () => {
    const reference = await dump(single.engine, single.dataDir);
    const before = a.workRequests;
    let killedAt: number | null = null;
    const twin = await indexOver({ a, b }, (p) => {
      // Well into the job (Map has started), the next request a receives kills it mid-reply.
      if (killedAt === null && p.stage === 'map') {
        killedAt = a.workRequests - before;
        a.inject('kill');
      }
    });
    expect(killedAt).not.toBeNull();
    const status = twin.engine.models.endpointStatus();
    expect(status.find((s) => s.id === 'a-gen')).toMatchObject({ health: 'down' });
    expect(
      status.find((s) => s.id === 'a-gen')!.failures + status.find((s) => s.id === 'a-emb')!.failures,
    ).toBeGreaterThan(0);
    expect(status.find((s) => s.id === 'b-gen')!.calls).toBeGreaterThan(0);
    // The same units fail for the same reasons; which server answered them and how long they took differ.
    expect(sameFailures(twin.result.failures)).toEqual(sameFailures(single.result.failures));
    expect(await dump(twin.engine, twin.dataDir)).toBe(reference);
  }, 900_000);
});
