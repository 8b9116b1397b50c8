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
  it('keeps the event loop turning: UI calls made during the job are answered within a few hundred ms', async () => {
    const llm = new ScriptedLlm(syntheticRules());
    const { engine, dispose } = await tempEngine({ llm, embedder: new SyntheticEmbedder() });
    try {
      await call(engine, 'kb:create', { name: 'loop' });
      await call(engine, 'docs:add', { kb: 'loop', paths: [dir] });
      const { jobId } = await call<{ jobId: string }>(engine, 'index:start', { kb: 'loop' });
      let running = true;
      const settled = engine.jobs.settled(jobId).finally(() => (running = false));
      const waits: number[] = [];
      while (running) {
        const due = performance.now() + 20;
        await new Promise((r) => setTimeout(r, 20));
        await call(engine, 'docs:list', { kb: 'loop', limit: 20 });
        waits.push(performance.now() - due);
      }
      console.log(`UI call waits during the job: n ${waits.length}, max ${Math.max(...waits).toFixed(0)} ms`);
      expect((await settled)?.status).toBe('done');
      expect(llm.calls.length).toBeGreaterThan(2000);
      // Before the engine yielded between units, the first UI call waited for all model stages (seconds here).
      expect(Math.max(...waits)).toBeLessThan(400);
      expect(waits.length).toBeGreaterThan(20);
    } finally {
      await dispose();
    }
  }, 60_000);
});
