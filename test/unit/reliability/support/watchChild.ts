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
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { Engine } from '../../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../../src-main/engine/api/paths.js';
import type { KbSummary } from '../../../../src-main/engine/api/contract.js';
import type { EmbedOptions, Embedder } from '../../../../src-main/engine/models/Embedder.js';
import type {
  Llm,
  LlmCallOptions,
  LlmJsonResult,
  LlmTextResult,
  RenderedPrompt,
} from '../../../../src-main/engine/models/Llm.js';
import { ScriptedLlm } from '../../../support/ScriptedLlm.js';
import { SyntheticEmbedder, syntheticRules } from './syntheticCorpus.js';

const [dataDir, folder, KB_NAME, holdAt] = process.argv.slice(2) as [string, string, string, string | undefined];
const [holdStage, holdCall, holdAfter] = holdAt?.split(':') ?? [];
let stage = '';
let holding = false;

/** Documents this job has ingested (chunks committed) and not yet indexed, as the KB says. */
function ingestedPending(): number {
  let n = 0;
  for (const d of engine.kbs.get(KB_NAME).kb.documents.iterateDocuments())
    if (d.status === 'pending' && d.chunkCount > 0) n++;
  return n;
}

/** For the held call (see the file comment): a promise that never settles; otherwise null. */
function holdIf(name: string): Promise<never> | null {
  if (holding || name !== holdCall || stage !== holdStage) return null;
  if (holdAfter !== undefined && ingestedPending() < Number(holdAfter)) return null;
  holding = true;
  process.stdout.write(`held ${stage}\n`);
  return new Promise<never>(() => {});
}

class HoldingEmbedder implements Embedder {
  readonly #inner = new SyntheticEmbedder();
  readonly identity = this.#inner.identity;
  readonly dimension = this.#inner.dimension;

  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    return holdIf('embed') ?? this.#inner.embed(texts, options);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

class HoldingLlm implements Llm {
  readonly #inner = new ScriptedLlm(syntheticRules(), { parallelism: 4 });
  readonly identity = this.#inner.identity;
  readonly parallelism = this.#inner.parallelism;

  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    return holdIf(prompt.name) ?? this.#inner.generateText(prompt, options);
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    return holdIf(prompt.name) ?? this.#inner.generateJson(prompt, schema, options);
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

async function call<T>(method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

const repoRoot = resolve(import.meta.dirname, '../../../..');
const engine = await Engine.create({
  paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
  models: { llm: new HoldingLlm(), embedder: new HoldingEmbedder() },
  watchTimings: { debounceMs: 100 },
});
const indexing = () => engine.jobs.list().some((j) => j.kind === 'index' && j.status === 'running');
engine.onEvent((e) => {
  if (e.name === 'job:progress' && e.payload.kind === 'index' && e.payload.stage !== stage)
    process.stdout.write(`stage ${(stage = e.payload.stage)}\n`);
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
if (!(await call<KbSummary[]>('kb:list', {})).some((k) => k.name === KB_NAME)) {
  await call('kb:create', { name: KB_NAME });
  await call('watch:add', { kb: KB_NAME, path: folder });
}
await engine.watches.start(KB_NAME);
process.stdout.write('watching\n');
