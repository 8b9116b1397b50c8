import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobState, KbSummary } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { addIthacaPdf, oldKbEngine } from '../../support/oldKbEngine.js';
import { call } from '../../support/tempEngine.js';

/**
 * Listing KBs must not start their upgrade jobs (the app lists every KB at start: each old one
 * would read its files again, OCR included, all at once). The job starts when a KB is used, or
 * when the user asks; the list says which KBs need one.
 */
describe('kb upgrade job: started by use, not by listing', () => {
  let made: Awaited<ReturnType<typeof oldKbEngine>>;
  let engine: Engine;

  beforeEach(async () => {
    made = await oldKbEngine({
      names: ['first', 'second'],
      fill: (kb, dataDir) => addIthacaPdf(kb, join(dataDir, `${kb.metadata.meta().name}.pdf`)),
    });
    ({ engine } = made);
  });
  afterEach(() => made.dispose());

  const upgradeJobs = (): JobState[] => engine.jobs.list().filter((j) => j.kind === 'upgrade');

  it('listing or renaming old KBs starts no job and says they need one; using one starts its job only', async () => {
    const listed = await call<KbSummary[]>(engine, 'kb:list', {});
    expect(listed.map((k) => [k.name, k.upgradeDue])).toEqual([
      ['first', true],
      ['second', true],
    ]);
    await call(engine, 'kb:list', {});
    expect(upgradeJobs()).toEqual([]);

    await call(engine, 'docs:list', { kb: 'first' });
    const [job] = upgradeJobs();
    expect(job).toMatchObject({ kb: 'first', status: 'running' });
    expect(await engine.jobs.settled(job!.jobId)).toMatchObject({ status: 'done' });
    expect((await call<KbSummary[]>(engine, 'kb:list', {})).map((k) => [k.name, k.upgradeDue])).toEqual([
      ['first', false],
      ['second', true],
    ]);
    expect(upgradeJobs().map((j) => j.kb)).toEqual(['first']);

    // Renaming is not using: the list still says the renamed KB needs its upgrade, and none started.
    const renamed = await call<KbSummary>(engine, 'kb:rename', { kb: 'second', newName: 'renamed' });
    expect(renamed).toMatchObject({ name: 'renamed', upgradeDue: true });
    expect(upgradeJobs().map((j) => j.kb)).toEqual(['first']);

    const { jobId } = await call<{ jobId: string }>(engine, 'kb:upgrade', { kb: 'renamed' });
    expect(await engine.jobs.settled(jobId)).toMatchObject({ kb: 'renamed', status: 'done' });
  });
});
