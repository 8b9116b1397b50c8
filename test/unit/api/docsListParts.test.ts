import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentPage } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { ingestPending } from '../../../src-main/engine/mder/ingestPending.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { call, tempEngine } from '../../support/tempEngine.js';

/** `docs:list` with `grouped` (parts of a file under it only) and `containerId` (one file's parts). */
describe('docs:list of files with parts', () => {
  let engine: Engine;
  let dispose: () => Promise<void>;
  const embedder = new NgramEmbedder(32);
  const folder = mkdtempSync(join(tmpdir(), 'polyhop-listparts-'));
  const mbox = join(folder, 'letters.mbox');
  const list = (options: object) => call<DocumentPage>(engine, 'docs:list', { kb: 'mail', limit: 100, ...options });

  beforeAll(async () => {
    copyFileSync(join(import.meta.dirname, '../../fixtures/producers/letters.mbox'), mbox);
    copyFileSync(join(import.meta.dirname, '../../fixtures/producers/minutes.eml'), join(folder, 'minutes.eml'));
    copyFileSync(join(import.meta.dirname, '../../fixtures/producers/club.odt'), join(folder, 'club.odt'));
    ({ engine, dispose } = await tempEngine({ embedder }));
    await call(engine, 'kb:create', { name: 'mail' });
    await call(engine, 'docs:add', { kb: 'mail', paths: [folder] });
    await ingestPending(engine.kbs.get('mail').kb, { embedder });
  });
  afterAll(async () => {
    await dispose();
    rmSync(folder, { recursive: true, force: true });
  });

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
