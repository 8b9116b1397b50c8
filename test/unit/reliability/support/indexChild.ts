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
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { Engine } from '../../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../../src-main/engine/api/paths.js';
import type { JobProgress, KbSummary } from '../../../../src-main/engine/api/contract.js';
import { MemoryCallCacheStore } from '../../../../src-main/engine/models/CallCache.js';
import { CachingLlm } from '../../../../src-main/engine/models/CachingLlm.js';
import { zodJsonSchema } from '../../../../src-main/engine/models/grammarSchema.js';
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

const [dataDir, corpusDir, latency, KB_NAME, holdAt] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];
const [holdStage, holdCall] = holdAt?.split(':') ?? [];
let stage = '';
let holding = false;

/** For the held call (see the file comment): a promise that never settles; otherwise null. */
function holdIf(name: string): Promise<never> | null {
  if (holding || name !== holdCall || stage !== holdStage) return null;
  holding = true;
  process.stdout.write(`held ${stage}\n`);
  return new Promise<never>(() => {});
}

/** The corpus's embedder, which can hold its first call of the held stage. */
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

/** Reports each call that reaches the model, under the key the engine's CachingLlm files it. */
class ReportingLlm implements Llm {
  readonly identity: string;
  readonly parallelism: number;
  readonly #inner: ScriptedLlm;
  readonly #keys: CachingLlm;

  constructor(inner: ScriptedLlm) {
    this.#inner = inner;
    this.identity = inner.identity;
    this.parallelism = inner.parallelism;
    this.#keys = new CachingLlm(inner, { store: new MemoryCallCacheStore() });
  }

  generateText(prompt: RenderedPrompt, options?: LlmCallOptions): Promise<LlmTextResult> {
    process.stdout.write(`ask ${prompt.name} ${this.#keys.keyFor('text', prompt, options)}\n`);
    return holdIf(prompt.name) ?? this.#inner.generateText(prompt, options);
  }

  generateJson<S extends z.ZodType>(
    prompt: RenderedPrompt,
    schema: S,
    options?: LlmCallOptions,
  ): Promise<LlmJsonResult<z.infer<S>>> {
    process.stdout.write(
      `ask ${prompt.name} ${this.#keys.keyFor('json', prompt, options, zodJsonSchema(schema).text)}\n`,
    );
    return holdIf(prompt.name) ?? this.#inner.generateJson(prompt, schema, options);
  }

  countTokens(text: string): number {
    return this.#inner.countTokens(text);
  }

  dispose(): Promise<void> {
    return this.#inner.dispose();
  }
}

/** The Api call unwrapped (tempEngine's helper needs vitest's globals). */
async function call<T>(method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

const repoRoot = resolve(import.meta.dirname, '../../../..');
const inner = new ScriptedLlm(syntheticRules(), { latencyMs: Number(latency), parallelism: 4 });
const engine = await Engine.create({
  paths: appPaths(repoRoot, dataDir, join(dataDir, 'models')),
  models: { llm: new ReportingLlm(inner), embedder: new HoldingEmbedder() },
});
const kbs = await call<KbSummary[]>('kb:list', {});
if (!kbs.some((k) => k.name === KB_NAME)) await call('kb:create', { name: KB_NAME });
process.stdout.write('adding\n');
await call('docs:add', { kb: KB_NAME, paths: [corpusDir] });
engine.onEvent((e) => {
  if (e.name !== 'job:progress') return;
  const next = (e.payload as JobProgress).stage;
  if (next !== stage) process.stdout.write(`stage ${(stage = next)}\n`);
});
process.stdout.write('ready\n');
const { jobId } = await call<{ jobId: string }>('index:start', { kb: KB_NAME });
const job = (await engine.jobs.settled(jobId))!;
await engine.dispose();
process.stdout.write(
  `done ${job.status} ${inner.calls.length}${job.error ? ` ${job.error.code}: ${job.error.message}` : ''}\n`,
);
process.exitCode = job.status === 'done' ? 0 : 1;
