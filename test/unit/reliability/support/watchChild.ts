/**
 * Child process of the kill-mid-watched-sync test: a front door that stays up (as `polyhop watch`
 * does) on the data directory argv[2], keeping the folder argv[3] in sync with the KB argv[4]
 * (created, with the folder watched, on the first run), with the synthetic corpus's scripted
 * model and embedder. With argv[5] = `<stage>:<prompt name | embed>[:<n>]`, the first such call
 * made while the index job is in that stage (in `ingest`: once n documents of the job have been
 * ingested and committed) never returns: the sync is held there, whatever the machine's load,
 * until the parent kills it.
 *
 * stdout, one line each: `watching` once the watchers are up; `synced <added> <renamed> <removed>
 * <jobId|none>` per sync; `stage <name>` when the index job enters a stage; `held <stage>` when a
 * call is held; `idle` when a sync or an index job ended with no index job running or started.
 */
import type { KbSummary } from '../../../../src-main/engine/api/contract.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { call, engineAt } from '../../../support/tempEngine.js';
import { CallHold, HoldingEmbedder, HoldingLlm } from './holdingModels.js';
import { SyntheticEmbedder, syntheticRules } from './syntheticCorpus.js';

const [dataDir, folder, KB_NAME, holdAt] = process.argv.slice(2) as [string, string, string, string | undefined];
const holdAfter = holdAt?.split(':')[2];
const hold = new CallHold(holdAt, () => holdAfter === undefined || ingestedPending() >= Number(holdAfter));

/** Documents this job has ingested (chunks committed) and not yet indexed, as the KB says. */
function ingestedPending(): number {
  let n = 0;
  for (const d of engine.kbs.get(KB_NAME).kb.documents.iterateDocuments())
    if (d.status === 'pending' && d.chunkCount > 0) n++;
  return n;
}

const engine = await engineAt(
  dataDir,
  {
    llm: new HoldingLlm(new ScriptedLlm(syntheticRules(), { parallelism: 4 }), hold),
    embedder: new HoldingEmbedder(new SyntheticEmbedder(), hold),
  },
  { watchTimings: { debounceMs: 100 } },
);
const indexing = () => engine.jobs.list().some((j) => j.kind === 'index' && j.status === 'running');
engine.onEvent((e) => {
  if (e.name === 'job:progress' && e.payload.kind === 'index' && e.payload.stage !== hold.stage)
    process.stdout.write(`stage ${(hold.stage = e.payload.stage)}\n`);
  if (e.name === 'watch:synced') {
    const s = e.payload;
    process.stdout.write(`synced ${s.added} ${s.renamed} ${s.removed} ${s.jobId ?? 'none'}\n`);
    if (s.jobId === null && !indexing()) process.stdout.write('idle\n');
  }
  // The watch service starts a job it queued meanwhile on this same event, before this listener.
  if (e.name === 'job:finished' && e.payload.kind === 'index') {
    if (e.payload.status !== 'done') process.stdout.write(`indexing ${e.payload.status} ${e.payload.error?.message}\n`);
    if (!indexing()) process.stdout.write('idle\n');
  }
});
if (!(await call<KbSummary[]>(engine, 'kb:list', {})).some((k) => k.name === KB_NAME)) {
  await call(engine, 'kb:create', { name: KB_NAME });
  await call(engine, 'watch:add', { kb: KB_NAME, path: folder });
}
await engine.watches.start(KB_NAME);
process.stdout.write('watching\n');
