import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { call, tempEngine } from '../../support/tempEngine.js';
import { SyntheticEmbedder, syntheticRules, writeSyntheticCorpus } from './support/syntheticCorpus.js';

/**
 * Issue 9, "Load": a job whose model calls settle at once (the zero-latency scripted model here; in
 * the app, a resumed job whose calls are all cached) must not hold the event loop for whole
 * stages, or every front door freezes until indexing ends. The UI's calls made during the job
 * are answered promptly. (`npm run bench load` measures the same at scale.)
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'polyhop-loop-'));
  writeSyntheticCorpus(dir, 200, { seed: 5 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('indexing with a model that answers at once', () => {
  it('keeps the event loop turning: UI calls are answered while every lasting stage runs, not after it', async () => {
    const llm = new ScriptedLlm(syntheticRules());
    const { engine, dispose } = await tempEngine({ llm, embedder: new SyntheticEmbedder() });
    try {
      // The paper's absolute chunk breakpoint cuts these synthetic documents finer than the percentile one: the job stays as large as this test was sized for.
      await call(engine, 'system:setSettings', { settings: { thresholds: 'paper' } });
      await call(engine, 'kb:create', { name: 'loop' });
      await call(engine, 'docs:add', { kb: 'loop', paths: [dir] });
      const { jobId } = await call<{ jobId: string }>(engine, 'index:start', { kb: 'loop' });
      let running = true;
      const settled = engine.jobs.settled(jobId).finally(() => (running = false));
      // Where the job stood (stage, units done of total) each time a UI call was answered. Units,
      // not milliseconds: a fast machine and a busy one read the same.
      const seen: { stage: string; done: number; total: number }[] = [];
      const totals = new Map<string, number>();
      const off = engine.onEvent((e) => {
        if (e.name === 'job:progress') totals.set(e.payload.stage, e.payload.total);
      });
      while (running) {
        // The UI asks again as soon as the loop turns (a timer would make this depend on the machine's speed).
        await new Promise((r) => setImmediate(r));
        await call(engine, 'docs:list', { kb: 'loop', limit: 20 });
        const progress = engine.jobs.get(jobId)?.progress;
        if (progress) seen.push({ stage: progress.stage, done: progress.done, total: progress.total });
      }
      off();
      expect((await settled)?.status).toBe('done');
      expect(llm.calls.length).toBeGreaterThan(2000);
      // A stage that held the event loop from its first unit to its last would see no UI call
      // answered in between (before the engine yielded between units, the first call waited for
      // all model stages). A UI round trip takes a few units' worth of turns (about one call per 30
      // units of disambiguate here), so every stage of at least 100 units is held to it.
      const lasting = [...totals].filter(([, total]) => total >= 100).map(([stage]) => stage);
      const midway = (stage: string) => seen.filter((s) => s.stage === stage && s.done > 0 && s.done < s.total).length;
      console.log(
        `UI calls answered midway: ${lasting.map((s) => `${s} ${midway(s)} (of ${totals.get(s)} units)`).join(', ')}`,
      );
      expect(lasting).toEqual(expect.arrayContaining(['map', 'enrich']));
      for (const stage of lasting)
        expect(midway(stage), `UI calls answered midway through ${stage}`).toBeGreaterThan(0);
    } finally {
      await dispose();
    }
  }, 120_000);
});
