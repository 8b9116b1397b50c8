import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDetail, JobState } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { LATEST_SCHEMA_VERSION } from '../../../src-main/engine/kb/migrations/migrate.js';
import { addPdf, oldKbEngine } from '../../support/oldKbEngine.js';
import { scanOf, writeScanPdf } from '../../support/scanWriter.js';
import { call } from '../../support/tempEngine.js';

/**
 * A KB an older Polyhop made (schema v14, before OCR records) opens at the current schema: its
 * documents have no OCR record, and the upgrade job, which reads its PDFs again to keep their
 * pages, keeps a scan's record too (which pages OCR read, how sure it was).
 */
describe('an old KB opens after migration 0018 (OCR records)', () => {
  let made: Awaited<ReturnType<typeof oldKbEngine>>;
  let engine: Engine;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    made = await oldKbEngine({
      names: ['old'],
      fill: (kb, dataDir) => {
        const files = {
          scan: writeScanPdf([
            { text: 'The first page has a text layer.' },
            scanOf(['The harbour master counted twelve ships', 'before the storm reached the coast.']),
          ]),
          text: writeScanPdf([{ text: 'A page with a text layer only.' }]),
        };
        for (const [name, bytes] of Object.entries(files))
          ids[name] = addPdf(kb, { path: join(dataDir, `${name}.pdf`), title: name, bytes, chunks: [`${name} text`] });
      },
    });
    ({ engine } = made);
    await call(engine, 'system:setSettings', { settings: { ocrLanguages: ['eng'] } });
  });
  afterAll(() => made?.dispose());

  const detail = (id: number) => call<DocumentDetail>(engine, 'docs:get', { kb: 'old', id });

  it('opens at the current schema, and its upgrade job runs to the end', async () => {
    await call(engine, 'kb:info', { kb: 'old' });
    const db = new Database(made.files.old!, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    } finally {
      db.close();
    }
    // Opening it started the upgrade job, which reads its PDFs again in the background.
    const job = engine.jobs.list().find((j) => j.kind === 'upgrade');
    expect(job).toBeDefined();
    expect(((await engine.jobs.settled(job!.jobId)) as JobState).status).toBe('done');
  });

  it('the upgrade job that kept the pages kept the scanned page’s OCR record; the text PDF has none', async () => {
    const got = await detail(ids.scan!);
    expect(got.ocr).toMatchObject({ languages: ['eng'], pages: [{ page: 2, reason: 'no text layer' }] });
    expect(got.ocr!.pages[0]!.confidence).toBeGreaterThanOrEqual(60);
    expect((await detail(ids.text!)).ocr).toBeNull();
  });
});
