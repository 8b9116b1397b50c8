/**
 * Load (issue 9): indexes a synthetic N-document corpus through the Api, as a front door does
 * (docs:add of a folder, index:start), with the zero-latency scripted LLM and the n-gram embedder,
 * while a simulated UI calls docs:list, graph:search and kb:info every ~50 ms. Prints documents/s,
 * peak RSS, SQLite and vector sizes, and the UI calls' latency percentiles (goal: p95 ≤ 100 ms
 * while indexing), per job stage, with the event loop's own delay as the baseline.
 *
 *   npm run bench load                      # 2,000 documents
 *   npm run bench load -- --docs 20000      # the issue's figure
 */
import { readdirSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Engine } from '../../src-main/engine/api/Engine.js';
import type { JobProgress } from '../../src-main/engine/api/contract.js';
import { appPaths } from '../../src-main/engine/api/paths.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import {
  SyntheticEmbedder,
  syntheticRules,
  writeSyntheticCorpus,
} from '../unit/reliability/support/syntheticCorpus.js';
import { numberArg } from './support/benchArgs.js';
import { LATENCY_HEADER, latencyRow as row, ok, pct, sampleUi, UI_CALLS } from './support/apiSampler.js';

const KB = 'load';

export async function run(args: string[]): Promise<void> {
  const docs = numberArg(args, '--docs', 2000);
  const intervalMs = numberArg(args, '--interval', 50);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-load-'));
  try {
    const corpus = join(dir, 'corpus');
    let t = performance.now();
    writeSyntheticCorpus(corpus, docs);
    console.log(
      `corpus: ${docs} generated plain-text documents (3 paragraphs, ~12 sentences, ~8 facts each) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    const dataDir = join(dir, 'data');
    const llm = new ScriptedLlm(syntheticRules(), { parallelism: 4, recordCalls: false });
    const engine = await Engine.create({
      paths: appPaths(resolve(import.meta.dirname, '../..'), dataDir, join(dataDir, 'models')),
      models: { llm, embedder: new SyntheticEmbedder() },
    });
    await ok(engine, 'kb:create', { name: KB });
    t = performance.now();
    const added = await ok<{ added: unknown[] }>(engine, 'docs:add', { kb: KB, paths: [corpus] });
    const addMs = performance.now() - t;
    console.log(
      `docs:add of the folder: ${added.added.length} documents in ${(addMs / 1000).toFixed(2)} s (one call, blocking: ${(addMs / docs).toFixed(2)} ms per document)`,
    );

    // Baseline: the same UI calls on the idle engine (after the add, before the job).
    const idle = await sampleUi(engine, KB, intervalMs, () => 'idle', 40);

    const stage = { current: 'start' };
    const stageTimes = new Map<string, number>();
    engine.onEvent((e) => {
      if (e.name !== 'job:progress') return;
      const next = (e.payload as JobProgress).stage;
      if (next !== stage.current) {
        stageTimes.set(next, performance.now());
        stage.current = next;
      }
    });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const stalls = watchStalls(20);
    t = performance.now();
    const { jobId } = await ok<{ jobId: string }>(engine, 'index:start', { kb: KB });
    let finished = false;
    const settled = engine.jobs.settled(jobId).then((s) => ((finished = true), s));
    const busy = await sampleUi(
      engine,
      KB,
      intervalMs,
      () => stage.current,
      Infinity,
      () => finished,
    );
    const state = (await settled)!;
    const jobMs = performance.now() - t;
    loop.disable();
    stalls.stop();
    if (state.status !== 'done') throw new Error(`index job ${state.status}: ${state.error?.message}`);

    const { kb } = engine.kbs.get(KB);
    const stats = kb.stats();
    const file = engine.kbs.registry.get(KB).file;
    const sqliteBytes = fileBytes(file);
    const rss = process.resourceUsage().maxRSS * 1024;

    console.log(
      `indexing: ${(jobMs / 1000).toFixed(1)} s, ${(docs / (jobMs / 1000)).toFixed(1)} documents/s (${llm.callCount} scripted model calls, zero latency)`,
    );
    const order = [...stageTimes.entries()].sort((a, b) => a[1] - b[1]);
    const stageAt = (time: number): string => order.filter(([, at]) => at <= time).at(-1)?.[0] ?? 'start';
    console.log(
      `  stages: ${order.map(([s, at], i) => `${s} ${(((order[i + 1]?.[1] ?? t + jobMs) - at) / 1000).toFixed(1)} s`).join(', ')}`,
    );
    console.log(
      `KB: ${stats.documents} documents, ${stats.chunks} chunks, ${stats.entities} entities, ${stats.triples} triples`,
    );
    console.log(
      `vectors: ${Object.entries(stats.vectors)
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )} (${Object.values(stats.vectors).reduce((a, b) => a + b, 0)} × 256 floats = ${mb(Object.values(stats.vectors).reduce((a, b) => a + b, 0) * 256 * 4)} as float32)`,
    );
    console.log(
      `SQLite: ${mb(sqliteBytes)} (kb.sqlite + WAL), ${(sqliteBytes / docs / 1024).toFixed(1)} KiB per document`,
    );
    console.log(`peak RSS: ${mb(rss)}`);
    console.log(
      `event loop delay while indexing: p50 ${ms(loop.percentile(50) / 1e6)}, p95 ${ms(loop.percentile(95) / 1e6)}, p99 ${ms(loop.percentile(99) / 1e6)}, max ${ms(loop.max / 1e6)}`,
    );

    console.log(`UI Api latency (a call every ${intervalMs} ms; p50 / p95 / max in ms; n):`);
    console.log(LATENCY_HEADER);
    for (const method of UI_CALLS)
      console.log(
        row(
          `${method} (idle)`,
          idle.filter((s) => s.method === method),
        ),
      );
    for (const method of UI_CALLS)
      console.log(
        row(
          `${method} (indexing)`,
          busy.filter((s) => s.method === method),
        ),
      );
    console.log(row('all (idle)', idle));
    console.log(row('all (indexing)', busy));
    for (const [s] of order) {
      const inStage = busy.filter((x) => stageAt(x.due) === s);
      if (inStage.length > 0) console.log(row(`  due during ${s}`, inStage));
    }
    // Where the event loop was held: every stretch of ≥ 20 ms without a timer turn, split over the stages it spans.
    const held = new Map<string, { total: number; longest: number; count: number }>();
    for (const gap of stalls.gaps) {
      order.forEach(([s, at], i) => {
        const end = order[i + 1]?.[1] ?? Infinity;
        const overlap = Math.min(gap.end, end) - Math.max(gap.start, at);
        if (overlap <= 0) return;
        const h = held.get(s) ?? { total: 0, longest: 0, count: 0 };
        held.set(s, { total: h.total + overlap, longest: Math.max(h.longest, overlap), count: h.count + 1 });
      });
    }
    console.log('event loop held ≥ 20 ms at a stretch, by stage (total / longest stretch / stretches):');
    for (const [s] of order) {
      const h = held.get(s);
      if (h)
        console.log(
          `  ${s.padEnd(13)} ${ms(h.total).padStart(11)} ${ms(h.longest).padStart(11)} ${String(h.count).padStart(5)}`,
        );
    }
    const p95 = pct(
      busy.map((s) => s.ms),
      95,
    );
    console.log(
      `goal p95 ≤ 100 ms while indexing: ${p95 <= 100 ? 'met' : 'MISSED'} (${ms(p95)}; ${(
        p95 /
        Math.max(
          0.01,
          pct(
            idle.map((s) => s.ms),
            95,
          ),
        )
      ).toFixed(1)}× the idle p95)`,
    );
    await engine.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Records every stretch of at least `thresholdMs` in which a 1 ms timer could not run. */
function watchStalls(thresholdMs: number): { gaps: { start: number; end: number }[]; stop: () => void } {
  const gaps: { start: number; end: number }[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last >= thresholdMs) gaps.push({ start: last, end: now });
    last = now;
  }, 1);
  return { gaps, stop: () => clearInterval(timer) };
}

function fileBytes(file: string): number {
  const dir = resolve(file, '..');
  return readdirSync(dir)
    .filter((f) => f.startsWith('kb.sqlite'))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

const ms = (x: number): string => `${x.toFixed(1)} ms`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
