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
      // When each stage ran (first to last progress event), and when each UI call was answered.
      const spans = new Map<string, { first: number; last: number }>();
      const off = engine.onEvent((e) => {
        if (e.name !== 'job:progress') return;
        const now = performance.now();
        const span = spans.get(e.payload.stage);
        if (span) span.last = now;
        else spans.set(e.payload.stage, { first: now, last: now });
      });
      const { jobId } = await call<{ jobId: string }>(engine, 'index:start', { kb: 'loop' });
      let running = true;
      const settled = engine.jobs.settled(jobId).finally(() => (running = false));
      const answered: number[] = [];
      while (running) {
        await new Promise((r) => setTimeout(r, 20));
        await call(engine, 'docs:list', { kb: 'loop', limit: 20 });
        answered.push(performance.now());
      }
      off();
      expect((await settled)?.status).toBe('done');
      expect(llm.calls.length).toBeGreaterThan(2000);
      // A stage that held the event loop from start to end would see no UI call answered inside it
      // (before the engine yielded between units, the first call waited for all model stages). Only
      // stages lasting long enough for a 20 ms timer to come due are held to it, so a slow machine
      // makes the check stricter, not flakier.
      const lasting = [...spans].filter(([, s]) => s.last - s.first > 250);
      console.log(`stages: ${[...spans].map(([name, s]) => `${name} ${(s.last - s.first).toFixed(0)} ms`).join(', ')}; UI calls answered: ${answered.length}`);
      expect(lasting.map(([name]) => name)).toEqual(expect.arrayContaining(['map', 'enrich']));
      for (const [name, s] of lasting) expect(answered.some((t) => t > s.first && t < s.last), `a UI call answered during ${name}`).toBe(true);
    } finally {
      await dispose();
    }
  }, 120_000);
});
