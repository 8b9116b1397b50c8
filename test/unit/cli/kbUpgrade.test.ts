import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { addIthacaPdf, oldKbEngine } from '../../support/oldKbEngine.js';

/** `polyhop kb upgrade NAME`: runs the upgrade job to its end, says what it did, and exits non-zero when it fails. */
describe('polyhop kb upgrade', () => {
  let made: Awaited<ReturnType<typeof oldKbEngine>>;
  const polyhop = (...args: string[]) => polyhopInProcess(made.dataDir, args, { engine: made.engine });

  beforeEach(async () => {
    made = await oldKbEngine({
      names: ['old'],
      fill: (kb, dataDir) => addIthacaPdf(kb, join(dataDir, 'ithaca.pdf')),
    });
  });
  afterEach(() => made.dispose());

  it('lists the KB as due, upgrades it, then finds nothing to do', async () => {
    expect((await polyhop('kb', 'list')).out).toMatch(/old\s.*\sdue/);
    const upgraded = await polyhop('kb', 'upgrade', 'old');
    expect(upgraded).toMatchObject({ code: 0, err: '' });
    expect(upgraded.out).toContain('Upgraded "old": pages kept for 1 documents');
    expect(made.engine.jobs.list().filter((j) => j.kind === 'upgrade')).toMatchObject([{ status: 'done' }]);
    expect(await polyhop('kb', 'upgrade', 'old')).toMatchObject({ code: 0, out: '"old" needs no upgrade\n' });
    expect(await polyhop('kb', 'upgrade', 'missing')).toMatchObject({ code: 1 });
  });

  it('exits 1 with the reason when the job fails', async () => {
    // The KB's page table goes from under the job once it has started on the pages.
    const off = made.engine.onEvent((event) => {
      if (event.name !== 'job:progress' || event.payload.stage !== 'pages') return;
      off();
      const db = new Database(made.files.old!);
      db.exec('DROP TABLE document_pages');
      db.close();
    });
    const failed = await polyhop('kb', 'upgrade', 'old');
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(
      /polyhop: the upgrade of "old" failed: .*document_pages.*run `polyhop kb upgrade old` again/,
    );
  });
});
