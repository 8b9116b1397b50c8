/**
 * Child process of the kill-at-random-moments test: the full Api flow a front door runs
 * (kb:create when missing, docs:add of a folder, index:start) on the data directory argv[2],
 * over the corpus folder argv[3], with the scripted model slowed by argv[4] ms per call, into the
 * KB named argv[5]. With argv[6] = `<stage>:<prompt name | embed>`, the first such call made
 * while the job is in that stage never returns: the job is held inside the stage, whatever the
 * machine's load, until the parent kills it.
 *
 * stdout, one line each: `adding` before docs:add; `ready` before index:start; `ask <prompt> <cacheKey>` when a call reaches
 * the model (the key is the one CachingLlm stores, so the parent can tell a repeated finished call);
 * `stage <name>` when the job enters a stage; `held <stage>` when a call is held; `done <status> <calls>` at the end.
 */
import type { JobProgress, KbSummary } from '../../../../src-main/engine/api/contract.js';
import { MemoryCallCacheStore } from '../../../../src-main/engine/models/CallCache.js';
import { CachingLlm } from '../../../../src-main/engine/models/CachingLlm.js';
import { zodJsonSchema } from '../../../../src-main/engine/models/grammarSchema.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { call, engineAt } from '../../../support/tempEngine.js';
import { CallHold, HoldingEmbedder, HoldingLlm } from './holdingModels.js';
import { SyntheticEmbedder, syntheticRules } from './syntheticCorpus.js';

const [dataDir, corpusDir, latency, KB_NAME, holdAt] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
const hold = new CallHold(holdAt);

const inner = new ScriptedLlm(syntheticRules(), { latencyMs: Number(latency), parallelism: 4 });
// Each call that reaches the model is reported under the key the engine's CachingLlm files it.
const keys = new CachingLlm(inner, { store: new MemoryCallCacheStore() });
const llm = new HoldingLlm(inner, hold, (prompt, options, schema) => {
  const key = schema
    ? keys.keyFor('json', prompt, options, zodJsonSchema(schema).text)
    : keys.keyFor('text', prompt, options);
  process.stdout.write(`ask ${prompt.name} ${key}\n`);
});
const engine = await engineAt(dataDir, { llm, embedder: new HoldingEmbedder(new SyntheticEmbedder(), hold) });
const kbs = await call<KbSummary[]>(engine, 'kb:list', {});
if (!kbs.some((k) => k.name === KB_NAME)) await call(engine, 'kb:create', { name: KB_NAME });
process.stdout.write('adding\n');
await call(engine, 'docs:add', { kb: KB_NAME, paths: [corpusDir] });
engine.onEvent((e) => {
  if (e.name !== 'job:progress') return;
  const next = (e.payload as JobProgress).stage;
  if (next !== hold.stage) process.stdout.write(`stage ${(hold.stage = next)}\n`);
});
process.stdout.write('ready\n');
const { jobId } = await call<{ jobId: string }>(engine, 'index:start', { kb: KB_NAME });
const job = (await engine.jobs.settled(jobId))!;
await engine.dispose();
process.stdout.write(
  `done ${job.status} ${inner.calls.length}${job.error ? ` ${job.error.code}: ${job.error.message}` : ''}\n`,
);
process.exitCode = job.status === 'done' ? 0 : 1;
