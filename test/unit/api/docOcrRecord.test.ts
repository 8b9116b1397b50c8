import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddDocumentsResult, DocumentDetail } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { documentLimitOptions } from '../../../src-main/engine/api/handlers/indexing.js';
import { ingestPending } from '../../../src-main/engine/mder/ingestPending.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { scanOf, writeScanPdf } from '../../support/scanWriter.js';
import { call, tempEngine } from '../../support/tempEngine.js';

/**
 * The OCR record a scan is indexed with (schema v18) through the documents Api: `docs:get` says
 * which pages OCR read, in which languages, how sure it was; re-indexing replaces the record and
 * removing the document removes it. One scanned page a run (OCR takes seconds a page).
 */
describe('docs:get: the pages of a document read by OCR', () => {
  let engine: Engine;
  let dataDir: string;
  let dispose: () => Promise<void>;
  const embedder = new NgramEmbedder(32);
  const folder = mkdtempSync(join(tmpdir(), 'polyhop-ocrrecord-'));
  const pdf = join(folder, 'mixed.pdf');

  beforeAll(async () => {
    ({ engine, dataDir, dispose } = await tempEngine({ embedder }));
    await call(engine, 'kb:create', { name: 'scans' });
    writeFileSync(
      pdf,
      writeScanPdf([
        { text: 'The first page has a text layer.' },
        scanOf(['The harbour master counted twelve ships', 'before the storm reached the coast.']),
      ]),
    );
  });
  afterAll(async () => {
    await dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  const ingest = () =>
    ingestPending(engine.kbs.get('scans').kb, {
      embedder,
      ...documentLimitOptions(engine.settings.get().documentLimits, ['eng']),
    });
  const detail = (id: number) => call<DocumentDetail>(engine, 'docs:get', { kb: 'scans', id });
  /** Every OCR row in the KB file, whatever document it names. */
  const ocrRows = () => {
    const db = new Database(engine.kbs.registry.get('scans').file, { readonly: true });
    try {
      return {
        records: db.prepare('SELECT document_id FROM document_ocr').pluck().all(),
        pages: db.prepare('SELECT document_id, page FROM document_ocr_pages').raw().all(),
      };
    } finally {
      db.close();
    }
  };
  const expectScannedPage = (got: DocumentDetail) => {
    expect(got.ocr).toMatchObject({ languages: ['eng'], pages: [{ page: 2, reason: 'no text layer' }] });
    const { confidence } = got.ocr!.pages[0]!;
    expect(confidence).toBeGreaterThanOrEqual(60);
    expect(confidence).toBeLessThanOrEqual(100);
    expect(Number.isInteger(confidence)).toBe(true);
  };

  let id: number;

  it('a mixed PDF: its scanned page is recorded with its confidence and language, its text page is not; a text file has no record', async () => {
    const text = join(folder, 'note.txt');
    writeFileSync(text, 'A note with a text of its own, read without OCR.');
    const added = await call<AddDocumentsResult>(engine, 'docs:add', { kb: 'scans', paths: [pdf, text] });
    await ingest();
    id = added.added.find((d) => d.path === pdf)!.id;
    const got = await detail(id);
    expectScannedPage(got);
    expect(got.document.error).toBe(
      `ingest: page 2 read by OCR (mean confidence ${got.ocr!.pages[0]!.confidence}%; eng)`,
    );
    expect((await detail(added.added.find((d) => d.path === text)!.id)).ocr).toBeNull();
  });

  it('polyhop doc prints the record: each page OCR read with its confidence and why; --json gives the Api detail', async () => {
    const { confidence } = (await detail(id)).ocr!.pages[0]!;
    const shown = await polyhopInProcess(dataDir, ['doc', String(id), '--kb', 'scans'], { engine });
    expect(shown).toMatchObject({ code: 0, err: '' });
    expect(shown.out).toContain(`mixed (document ${id})\n  ${pdf}\n`);
    expect(shown.out).toContain(`  OCR (eng): 1 page(s)\n    page 2: ${confidence}% (no text layer)\n`);
    const json = await polyhopInProcess(dataDir, ['--json', 'doc', String(id), '--kb', 'scans'], { engine });
    expect(JSON.parse(json.out)).toEqual(await detail(id));
    expect(await polyhopInProcess(dataDir, ['doc', '0', '--kb', 'scans'], { engine })).toMatchObject({ code: 1 });
  });

  it('re-indexed, the document comes back with a record of its own; the old one is gone', async () => {
    const again = await call<AddDocumentsResult>(engine, 'docs:reindex', { kb: 'scans', id });
    const newId = again.added[0]!.id;
    expect(newId).not.toBe(id);
    expect((await detail(newId)).ocr).toBeNull(); // pending: not read yet
    await ingest();
    expectScannedPage(await detail(newId));
    expect(ocrRows()).toEqual({ records: [newId], pages: [[newId, 2]] });
    id = newId;
  });

  it('read again after its file changed to text pages only, the document has no record left', async () => {
    writeFileSync(pdf, writeScanPdf([{ text: 'The first page has a text layer.' }, { text: 'So has the second.' }]));
    const again = await call<AddDocumentsResult>(engine, 'docs:reindex', { kb: 'scans', id });
    await ingest();
    id = again.added[0]!.id;
    expect((await detail(id)).ocr).toBeNull();
    expect(ocrRows()).toEqual({ records: [], pages: [] });
  });

  it('removed, the document takes its record with it', async () => {
    writeFileSync(pdf, writeScanPdf([scanOf(['Twelve ships reached the northern coast.'])]));
    const again = await call<AddDocumentsResult>(engine, 'docs:reindex', { kb: 'scans', id });
    await ingest();
    id = again.added[0]!.id;
    expect((await detail(id)).ocr?.pages.map((p) => p.page)).toEqual([1]);
    await call(engine, 'docs:remove', { kb: 'scans', id });
    expect(ocrRows()).toEqual({ records: [], pages: [] });
  });
});
