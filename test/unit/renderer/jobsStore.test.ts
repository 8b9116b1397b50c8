import { describe, expect, it } from 'vitest';
import type { PolyhopEvent } from '../../../src-main/engine/api/contract.js';
import { applyJobEvents, type JobView } from '../../../src-renderer/src/store/jobs.js';

const token = (text: string, reset?: boolean): PolyhopEvent => ({
  name: 'qa:token',
  payload: { jobId: 'j1', text, ...(reset ? { reset } : {}) },
});

describe('the Ask screen streaming view (jobs store)', () => {
  it('grows with each token, starts over on a reset, and keeps the finished answer as the result', () => {
    let jobs: Record<string, JobView> = {};
    const views: string[] = [];
    for (const batch of [
      [token('Penelope')],
      [token(' was the wi')],
      [token('', true), token('Penelope')],
      [token(' [1].')],
    ]) {
      jobs = applyJobEvents(jobs, batch);
      views.push(jobs.j1!.text);
    }
    expect(views).toEqual(['Penelope', 'Penelope was the wi', 'Penelope', 'Penelope [1].']);
    const answer = { text: 'Penelope [1].', shortAnswer: 'Penelope' };
    jobs = applyJobEvents(jobs, [
      { name: 'job:finished', payload: { jobId: 'j1', kind: 'ask', status: 'done', result: answer, error: null } },
    ]);
    expect(jobs.j1).toMatchObject({ status: 'done', result: answer });
  });
});

describe('the Corpus screen line for failed units (jobs store)', () => {
  it('reads the failed count and the grouped reasons from a finished index job, and nothing from a clean one', async () => {
    const { failedUnits } = await import('../../../src-renderer/src/store/jobs.js');
    const finished = (result: unknown): PolyhopEvent => ({
      name: 'job:finished',
      payload: { jobId: 'i1', kind: 'index', status: 'done', result, error: null },
    });
    const reasons = [{ reason: 'preprocess: endpoint gen refused the request (HTTP 400): model not loaded', count: 2 }];
    const jobs = applyJobEvents({}, [finished({ units: 7, failed: 2, failureReasons: reasons })]);
    expect(failedUnits(jobs.i1!)).toEqual({ failed: 2, units: 7, reasons });
    expect(failedUnits(applyJobEvents({}, [finished({ units: 7, failed: 0, failureReasons: [] })]).i1!)).toBeNull();
  });
});
