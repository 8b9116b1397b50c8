import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentPage } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { ingestedFolder } from '../../support/ingestedFolder.js';
import { call } from '../../support/tempEngine.js';

/** `docs:list` with `grouped` (parts of a file under it only) and `containerId` (one file's parts). */
describe('docs:list of files with parts', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  let folder: string;
  let mbox: string;
  const list = (options: object) => call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100, ...options });

  beforeAll(async () => {
    ({ engine, dispose, folder } = await ingestedFolder('mail', (into) => {
      for (const file of ['letters.mbox', 'minutes.eml', 'club.odt'])
        copyFileSync(join(import.meta.dirname, '../../fixtures/producers', file), join(into, file));
    }));
    mbox = join(folder, 'letters.mbox');
  });
  afterAll(() => dispose());

  it('lists each file once with its count of parts, and a file’s parts on their own', async () => {
    const all = await list({});
    const partsOf = (path: string) => all.rows.filter((r) => r.path.startsWith(`${path}#`));
    const eml = join(folder, 'minutes.eml');
    expect(partsOf(mbox).length).toBe(4); // three messages and a DOCX attachment
    expect(partsOf(eml).length).toBe(2); // the XLSX and ODT attachments
    expect(all.total).toBe(9);

    const grouped = await list({ grouped: true, sort: 'title' });
    expect(grouped.total).toBe(3);
    expect(Object.fromEntries(grouped.rows.map((r) => [r.path, r.partCount]))).toEqual({
      [mbox]: 4,
      [eml]: 2,
      [join(folder, 'club.odt')]: 0,
    });

    const mboxId = grouped.rows.find((r) => r.path === mbox)!.id;
    const parts = await list({ containerId: mboxId });
    expect(parts.rows.map((r) => r.path).sort()).toEqual(
      partsOf(mbox)
        .map((r) => r.path)
        .sort(),
    );
    expect(parts.total).toBe(4);
    // A filter within a file's parts; grouped, a file counts when one of its parts matches.
    expect((await list({ containerId: mboxId, filter: 'Captains' })).rows.map((r) => r.title)).toEqual(['Captains']);
    expect((await list({ grouped: true, filter: 'Captains' })).rows.map((r) => r.path)).toEqual([mbox]);
    expect((await list({ grouped: true, filter: 'club' })).rows.map((r) => r.path).sort()).toEqual(
      [mbox, eml, join(folder, 'club.odt')].sort(),
    );
  });
});
