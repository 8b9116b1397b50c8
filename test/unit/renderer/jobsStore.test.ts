import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next from 'i18next';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import type { PolyhopEvent } from '../../../src-main/engine/api/contract.js';
import { applyJobEvents, type JobView } from '../../../src-renderer/src/store/jobs.js';
import { repoRoot } from '../../support/tempEngine.js';

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

describe('the Jobs panel line for inference-server waits (jobs store)', () => {
  const LOCALES = join(repoRoot, 'src-renderer', 'locales');
  const BUSY = 'gpu1 is busy (HTTP 503: Service Unavailable); asking again in 2 s';
  const notice = (message: string): PolyhopEvent => ({
    name: 'endpoint:notice',
    payload: { endpoint: 'gpu1', role: 'generation', message },
  });
  const progress = (jobId: string): PolyhopEvent => ({
    name: 'job:progress',
    payload: {
      jobId,
      kind: 'index',
      kb: 'odyssey',
      stage: 'map',
      done: 1,
      total: 4,
      rate: 0,
      etaSeconds: null,
      llmCalls: 1,
      promptTokens: 0,
      completionTokens: 0,
      cacheHits: 0,
      message: '',
    },
  });
  const finished = (jobId: string): PolyhopEvent => ({
    name: 'job:finished',
    payload: { jobId, kind: 'index', status: 'done', result: { units: 4, failed: 0 }, error: null },
  });

  /** The panel as the UI shows it in `language`, with that locale's strings only (a missing one shows as its key). */
  async function panel(job: JobView, language: string): Promise<string> {
    const { JobPanel } = await import('../../../src-renderer/src/components/JobPanel.js');
    const translation = JSON.parse(readFileSync(join(LOCALES, `${language}.json`), 'utf8'));
    const i18n = i18next.createInstance();
    await i18n
      .use(initReactI18next)
      .init({ lng: language, resources: { [language]: { translation } }, fallbackLng: false });
    return renderToStaticMarkup(createElement(I18nextProvider, { i18n }, createElement(JobPanel, { job })));
  }

  it('gives a running job the latest notice, and shows it in every UI language; a finished job shows none', async () => {
    let jobs = applyJobEvents({}, [progress('i1'), progress('i2'), finished('i2')]);
    jobs = applyJobEvents(jobs, [
      notice('gpu1 is busy (HTTP 429: Too Many Requests); asking again in 1 s'),
      notice(BUSY),
    ]);
    expect(jobs.i1!.notice).toBe(BUSY);
    expect(jobs.i2!.notice).toBeNull();
    const languages = readdirSync(LOCALES).map((f) => f.replace(/\.json$/, ''));
    expect(languages).toEqual(expect.arrayContaining(['en', 'it', 'fr', 'es', 'de', 'zh']));
    for (const language of languages) {
      const html = await panel(jobs.i1!, language);
      const line = /data-testid="job-endpoint-notice">([^<]*)</.exec(html)?.[1];
      expect([language, line]).toEqual([language, expect.stringContaining(BUSY)]);
      expect(line).not.toContain('job.endpointNotice');
    }
    jobs = applyJobEvents(jobs, [finished('i1')]);
    expect(await panel(jobs.i1!, 'en')).not.toContain('job-endpoint-notice');
  });
});
