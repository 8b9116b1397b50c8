import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  STRATEGIES,
  type Answer,
  type JobState,
  type SparqlResult,
  type StrategyName,
} from '../../../../src-main/engine/api/contract.js';
import { Engine } from '../../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../../src-main/engine/api/paths.js';
import { CORPUS_DIR, CORPUS_FILES, corpusRules } from '../../../support/corpusScript.js';
import { ScriptedLlm, type ScriptRule } from '../../../support/ScriptedLlm.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from '../../qa/support/qaScript.js';

/**
 * The whole life of a KB through the Api, as a user would drive it: doctor, create, add the
 * multilingual corpus, index, ask with every strategy, export Turtle, import it into a second
 * KB, query with SPARQL. Used in-process under the network guard and in a child process inside
 * a network namespace; plain Engine calls only, so it runs under vitest and under `node --import tsx`.
 */

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../../../', import.meta.url)));

/** The question per strategy: three of the corpus' four languages. */
export const QUESTIONS: Record<StrategyName, string> = {
  dr: WIFE_OF_KING.it,
  hyp: WIFE_OF_KING.en,
  dapt: WIFE_OF_KING.fr,
  vector: WIFE_OF_KING.en,
  'llm-only': WIFE_OF_KING.es,
};

export interface FullRunSummary {
  doctorOk: boolean;
  documents: { path: string; status: string; language: string | null }[];
  answers: Record<string, { status: string; text: string; evidence: number }>;
  exportedQuads: number;
  importedQuads: number;
  sparqlTriples: number;
  llmCalls: number;
}

/** A scripted model answering both the indexing and the QA prompts of the corpus. */
export function corpusLlm(extra: ScriptRule[] = []): ScriptedLlm {
  return new ScriptedLlm([...extra, ...corpusRules(), ...qaRules()]);
}

export async function engineAt(dataDir: string, llm: ScriptedLlm): Promise<Engine> {
  return Engine.create({
    paths: appPaths(REPO_ROOT, dataDir, join(dataDir, 'models')),
    models: { llm, embedder: new QaEmbedder() },
  });
}

async function value<T>(engine: Engine, method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

async function job(engine: Engine, method: string, payload: unknown): Promise<{ state: JobState; result: unknown }> {
  const { jobId } = await value<{ jobId: string }>(engine, method, payload);
  let result: unknown;
  const off = engine.onEvent((e) => {
    if (e.name === 'job:finished' && e.payload.jobId === jobId) result = e.payload.result;
  });
  const state = (await engine.jobs.settled(jobId)) as JobState;
  off();
  if (state.status !== 'done')
    throw new Error(`${method}: job ${state.status}: ${state.error?.code}: ${state.error?.message}`);
  return { state, result };
}

export async function fullRun(engine: Engine, llm: ScriptedLlm, workDir: string): Promise<FullRunSummary> {
  const doctor = await engine.call('system:doctor', {});
  await value(engine, 'models:list', {});
  await value(engine, 'models:catalog', {});

  await value(engine, 'kb:create', { name: 'odyssey' });
  await value(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  await job(engine, 'index:start', { kb: 'odyssey' });
  const page = await value<{ rows: { path: string; status: string; language: string | null }[] }>(engine, 'docs:list', {
    kb: 'odyssey',
  });

  const answers: FullRunSummary['answers'] = {};
  for (const strategy of STRATEGIES) {
    const { state, result } = await job(engine, 'qa:ask', { kb: 'odyssey', question: QUESTIONS[strategy], strategy });
    const answer = result as Answer;
    answers[strategy] = { status: state.status, text: answer.text, evidence: answer.evidence.length };
  }

  const turtle = join(workDir, 'odyssey.ttl');
  const exported = await job(engine, 'rdf:export', {
    kb: 'odyssey',
    format: 'turtle',
    scope: { kind: 'all' },
    outputPath: turtle,
  });
  await value(engine, 'kb:create', { name: 'reimported' });
  const imported = await job(engine, 'rdf:import', { kb: 'reimported', inputPath: turtle });
  const sparql = await value<SparqlResult>(engine, 'sparql:query', {
    kb: 'odyssey',
    query: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }',
    timeoutMs: 60_000,
  });

  return {
    doctorOk: doctor.ok,
    documents: page.rows.map((r) => ({ path: r.path, status: r.status, language: r.language })),
    answers,
    exportedQuads: (exported.result as { quads: number }).quads,
    importedQuads: (imported.result as { quads: number }).quads,
    sparqlTriples: Number(sparql.rows[0]?.n ?? 0),
    llmCalls: llm.calls.length,
  };
}
