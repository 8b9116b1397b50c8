import { join } from 'node:path';
import {
  STRATEGIES,
  type Answer,
  type JobState,
  type SparqlResult,
  type StrategyName,
} from '../../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../../src-main/engine/api/Engine.js';
import { CORPUS_DIR, CORPUS_FILES, corpusRules } from '../../../support/corpusScript.js';
import { ScriptedLlm, type ScriptRule } from '../../../support/ScriptedLlm.js';
import { call, engineAt, runJobToEnd } from '../../../support/tempEngine.js';
import { QaEmbedder, qaRules, WIFE_OF_KING } from '../../qa/support/qaScript.js';

/**
 * The whole life of a KB through the Api, as a user would drive it: doctor, create, add the
 * multilingual corpus, index, ask with every strategy, export Turtle, import it into a second
 * KB, query with SPARQL. Used in-process under the network guard and in a child process inside
 * a network namespace; plain Engine calls only, so it runs under vitest and under `node --import tsx`.
 */

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

/** An engine over `dataDir` with the corpus's scripted model and the QA embedder. */
export function corpusEngineAt(dataDir: string, llm: ScriptedLlm): Promise<Engine> {
  return engineAt(dataDir, { llm, embedder: new QaEmbedder() });
}

/** {@link runJobToEnd}, failing unless the job is done. */
async function job(engine: Engine, method: string, payload: unknown): Promise<{ state: JobState; result: unknown }> {
  const { result, ...state } = await runJobToEnd(engine, method, payload);
  if (state.status !== 'done')
    throw new Error(`${method}: job ${state.status}: ${state.error?.code}: ${state.error?.message}`);
  return { state, result };
}

export async function fullRun(engine: Engine, llm: ScriptedLlm, workDir: string): Promise<FullRunSummary> {
  const doctor = await engine.call('system:doctor', {});
  await call(engine, 'models:list', {});
  await call(engine, 'models:catalog', {});

  await call(engine, 'kb:create', { name: 'odyssey' });
  await call(engine, 'docs:add', { kb: 'odyssey', paths: CORPUS_FILES.map((f) => join(CORPUS_DIR, f)) });
  await job(engine, 'index:start', { kb: 'odyssey' });
  const page = await call<{ rows: { path: string; status: string; language: string | null }[] }>(engine, 'docs:list', {
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
  await call(engine, 'kb:create', { name: 'reimported' });
  const imported = await job(engine, 'rdf:import', { kb: 'reimported', inputPath: turtle });
  const sparql = await call<SparqlResult>(engine, 'sparql:query', {
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
