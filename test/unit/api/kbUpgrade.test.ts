import { copyFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobState } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { KnowledgeBase } from '../../../src-main/engine/kb/KnowledgeBase.js';
import { oldKbEngine } from '../../support/oldKbEngine.js';
import { call } from '../../support/tempEngine.js';
import { addDoc, anisotropicVectors } from '../kb/kbFixtures.js';
import { recentreInSteps, storedCodes } from '../kb/vectorCentreFixtures.js';

/**
 * The upgrade job: a KB made before centred codes (schema v14) with more vectors than a search
 * recodes at once gets its centre from a job started on opening it, visible in the Jobs list,
 * cancellable, and resumed by `kb:upgrade` to the same end as an uninterrupted run.
 */
describe('kb upgrade job', () => {
  let made: Awaited<ReturnType<typeof oldKbEngine>>;
  let file: string;
  let engine: Engine;
  const count = 9000;

  beforeEach(async () => {
    made = await oldKbEngine({
      names: ['old'],
      families: ['chunk'],
      fill: (kb) => {
        kb.vectors.setEmbedder('test-384', 384);
        const sample = anisotropicVectors({ dimension: 384, clusters: 50, spread: 1.7, seed: 12, meanCosine: 0.78 });
        const { chunkIds } = addDoc(kb, '/a', ...Array.from({ length: count }, (_, i) => `chunk ${i}`));
        kb.vectors.putVectors(
          'chunk',
          chunkIds.map((id) => ({ id, vector: sample() })),
        );
      },
    });
    ({ engine } = made);
    file = made.files.old!;
  });
  afterEach(() => made.dispose());

  const upgradeJobs = (): JobState[] => engine.jobs.list().filter((j) => j.kind === 'upgrade');

  it('starts on opening the KB and recentres it; a KB that needs nothing starts none', async () => {
    await call(engine, 'kb:info', { kb: 'old' });
    const [job] = upgradeJobs();
    expect(job).toMatchObject({ kb: 'old', status: 'running' });
    const ended = await engine.jobs.settled(job!.jobId);
    expect(ended).toMatchObject({ status: 'done', progress: { stage: 'recentre', done: 2 * count, total: 2 * count } });
    expect(storedCodes(file, 'chunk')).toMatchObject({ centredAt: count, consistent: true });
    const listed = await call<JobState[]>(engine, 'jobs:list', {});
    expect(listed.filter((j) => j.kind === 'upgrade').map((j) => j.status)).toEqual(['done']);
    expect(await call(engine, 'kb:upgrade', { kb: 'old' })).toEqual({ jobId: null });
    await call(engine, 'kb:create', { name: 'new' });
    expect(upgradeJobs()).toHaveLength(1);
  });

  it('cancelled midway, it resumes on demand and ends as an uninterrupted run does', async () => {
    const copy = `${file}.copy`;
    copyFileSync(file, copy);
    const whole = KnowledgeBase.open(copy);
    try {
      recentreInSteps(whole, 'chunk');
    } finally {
      whole.close();
    }
    // Cancelled once the mean is taken and some codes are written: a batch is the unit of work.
    const off = engine.onEvent((event) => {
      if (event.name === 'job:progress' && event.payload.kind === 'upgrade' && event.payload.done > count)
        engine.jobs.cancel(event.payload.jobId);
    });
    await call(engine, 'kb:info', { kb: 'old' });
    const cancelled = await engine.jobs.settled(upgradeJobs()[0]!.jobId);
    off();
    expect(cancelled?.status).toBe('cancelled');
    expect(cancelled?.progress?.done).toBeLessThan(2 * count);
    expect(storedCodes(file, 'chunk')).toMatchObject({ centre: null, centredAt: 0, consistent: true });

    const { jobId } = await call<{ jobId: string }>(engine, 'kb:upgrade', { kb: 'old' });
    expect(jobId).not.toBe(cancelled?.jobId);
    expect(await engine.jobs.settled(jobId)).toMatchObject({ status: 'done' });
    const resumed = storedCodes(file, 'chunk');
    expect(resumed).toMatchObject({ centredAt: count, consistent: true });
    expect(resumed).toEqual(storedCodes(copy, 'chunk'));
  });
});
