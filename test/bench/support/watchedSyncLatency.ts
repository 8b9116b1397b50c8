/**
 * `npm run bench uiLatency -- --watch`: the Api's latency for the UI's read calls (docs:list,
 * graph:search, kb:info, one every `--interval` ms) while a watched folder's sync runs, against
 * the idle engine, in the same run on the same KB. A folder of `--docs` synthetic documents is
 * watched and indexed first (not measured); then the idle baseline; then `--changes` files are
 * added, a tenth as many changed and as many removed under the watched folder, and the same calls
 * run until the watcher's sync and the index job it starts have ended. Zero-latency scripted LLM
 * and n-gram embedder, as in `bench load`: the engine's own work is what the calls wait behind.
 *
 *   npm run bench uiLatency -- --watch                       # 2,000 documents, 1,000 added
 *   npm run bench uiLatency -- --watch --docs 500 --changes 300
 */
import { copyFileSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Engine } from '../../../src-main/engine/api/Engine.js';
import { appPaths } from '../../../src-main/engine/api/paths.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import {
  SyntheticEmbedder,
  syntheticRules,
  writeSyntheticCorpus,
} from '../../unit/reliability/support/syntheticCorpus.js';
import { LATENCY_HEADER, latencyRow, ok, pct, sampleUi, UI_CALLS, type Sample } from './apiSampler.js';
import { numberArg } from './benchArgs.js';

const KB = 'watched';
const GOAL_MS = 100;

export async function runWatchedSync(args: string[]): Promise<void> {
  const docs = numberArg(args, '--docs', 2000);
  const added = numberArg(args, '--changes', 1000);
  const intervalMs = numberArg(args, '--interval', 50);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-watch-ui-'));
  const folder = join(dir, 'folder');
  const llm = new ScriptedLlm(syntheticRules(), { parallelism: 4, recordCalls: false });
  const dataDir = join(dir, 'data');
  const engine = await Engine.create({
    paths: appPaths(resolve(import.meta.dirname, '../../..'), dataDir, join(dataDir, 'models')),
    models: { llm, embedder: new SyntheticEmbedder() },
    watchTimings: { debounceMs: 500 },
  });
  try {
    const initial = writeSyntheticCorpus(folder, docs);
    const stock = writeSyntheticCorpus(join(dir, 'stock'), added + Math.ceil(added / 10), { seed: 7, prefix: 's' });
    // The sync's phases: the watcher's debounce and the recording of the changes ('watcher'), then the index job's stages.
    let stage = 'idle';
    let synced = 0;
    let settledAt = 0;
    let recordedAt: number | undefined;
    const indexing = () => engine.jobs.list().some((j) => j.kind === 'index' && j.status === 'running');
    engine.onEvent((e) => {
      if (e.name === 'job:progress' && e.payload.kind === 'index') stage = e.payload.stage;
      if (e.name === 'watch:synced') {
        synced++;
        recordedAt ??= stage === 'watcher' ? performance.now() : undefined;
        // Recorded; the index job it started has not reported yet.
        if (stage === 'watcher') stage = 'recorded';
      }
      if ((e.name === 'job:finished' && e.payload.kind === 'index') || e.name === 'watch:synced')
        if (!indexing()) settledAt = synced;
    });
    const quiet = async (syncs: number): Promise<void> => {
      while (settledAt < syncs) await new Promise((r) => setTimeout(r, 100));
    };

    let t = performance.now();
    await ok(engine, 'kb:create', { name: KB });
    await ok(engine, 'watch:add', { kb: KB, path: folder });
    await engine.watches.start(KB);
    await quiet(1);
    console.log(
      `watched folder: ${docs} synthetic documents caught up and indexed in ${((performance.now() - t) / 1000).toFixed(1)} s (zero-latency scripted LLM, n-gram embedder; not measured)`,
    );
    console.log(
      `host: ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (shared machine)`,
    );

    stage = 'idle';
    const idle = await sampleUi(engine, KB, intervalMs, () => 'idle', 120);

    t = performance.now();
    const before = synced;
    stage = 'watcher';
    const changed = Math.ceil(added / 10);
    for (let i = 0; i < added; i++) copyFileSync(stock[i]!, join(folder, `new-${i}.txt`));
    for (let i = 0; i < changed; i++) copyFileSync(stock[added + i]!, initial[i]!);
    for (let i = 0; i < changed; i++) unlinkSync(initial[docs - 1 - i]!);
    // Until a sync has recorded the changes and no index job runs after it (a burst the watcher
    // hands on in several batches may end the measurement after the first batch's job).
    const busy = await sampleUi(
      engine,
      KB,
      intervalMs,
      () => stage,
      Infinity,
      () => synced > before && settledAt === synced,
    );
    const syncMs = performance.now() - t;
    const stats = engine.kbs.get(KB).kb.stats();
    console.log(
      `watched sync: ${added} files added, ${changed} changed, ${changed} removed; recorded by the watcher's first sync after ${(((recordedAt ?? t) - t) / 1000).toFixed(1)} s; ${synced - before} sync(s) and their indexing in ${(syncMs / 1000).toFixed(1)} s; KB now ${stats.documents} documents`,
    );

    console.log(`UI Api latency (a call every ${intervalMs} ms, timed from when it was due; p50 / p95 / max; n):`);
    console.log(LATENCY_HEADER);
    for (const [label, samples] of [
      ['idle', idle],
      ['watched sync', busy],
    ] as const)
      for (const method of UI_CALLS)
        console.log(
          latencyRow(
            `${method} (${label})`,
            samples.filter((s) => s.method === method),
          ),
        );
    console.log(latencyRow('all (idle)', idle));
    console.log(latencyRow('all (watched sync)', busy));
    for (const s of [...new Set(busy.map((x) => x.stage))])
      console.log(
        latencyRow(
          `  due during ${s}`,
          busy.filter((x: Sample) => x.stage === s),
        ),
      );
    const p95 = pct(
      busy.map((s) => s.ms),
      95,
    );
    const idleP95 = pct(
      idle.map((s) => s.ms),
      95,
    );
    console.log(
      `goal p95 ≤ ${GOAL_MS} ms during the watched sync: ${p95 <= GOAL_MS ? 'met' : 'MISSED'} (${p95.toFixed(1)} ms; ${(p95 / Math.max(0.01, idleP95)).toFixed(1)}× the idle p95 of ${idleP95.toFixed(1)} ms)`,
    );
  } finally {
    await engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
