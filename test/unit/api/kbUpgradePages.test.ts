import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobState } from '../../../src-main/engine/api/contract.js';
import type { Engine } from '../../../src-main/engine/api/Engine.js';
import { writePdf } from '../../support/pdfWriter.js';
import { addPdf, oldKbEngine } from '../../support/oldKbEngine.js';
import { call } from '../../support/tempEngine.js';
import { chunks } from '../kb/kbFixtures.js';

/**
 * The upgrade job keeps the pages of PDFs indexed before v16 (read again, cut by
 * ingest/pageTexts.ts), a document per transaction; one whose file is gone is recorded and left to
 * the citation's fallback. Cancelled midway and run again, it ends as one run does.
 */
describe('kb upgrade job: pages of documents indexed before v16', () => {
  let made: Awaited<ReturnType<typeof oldKbEngine>>;
  let file: string;
  let engine: Engine;
  const pdfPages = (name: string) => [`${name} one is about Ithaca.`, `${name} two is about Penelope.`];
  const ids: Record<string, number> = {};

  beforeEach(async () => {
    made = await oldKbEngine({
      names: ['old'],
      fill: (kb, dataDir) => {
        for (const name of ['first', 'second', 'gone']) {
          const path = join(dataDir, `${name}.pdf`);
          ids[name] = addPdf(kb, {
            path,
            title: name,
            bytes: writePdf({ pages: pdfPages(name) }),
            chunks: pdfPages(name),
          });
        }
        const text = kb.documents.addDocument({ path: '/t.txt', title: 't', hash: 'h', mime: 'text/plain', size: 1 });
        kb.documents.replaceChunks(text.id, chunks('plain text'));
      },
    });
    ({ engine } = made);
    file = made.files.old!;
    rmSync(join(made.dataDir, 'gone.pdf'));
  });
  afterEach(() => made.dispose());

  const keptPages = (): { document_id: number; page: number; text: string }[] => {
    const db = new Database(file, { readonly: true });
    try {
      return db
        .prepare(
          'SELECT document_id, page, start_offset, end_offset, text FROM document_pages ORDER BY document_id, page',
        )
        .all() as { document_id: number; page: number; text: string }[];
    } finally {
      db.close();
    }
  };
  const upgradeJobs = (): JobState[] => engine.jobs.list().filter((j) => j.kind === 'upgrade');
  const runOnOpen = async (): Promise<JobState & { result: unknown }> => {
    let result: unknown;
    const off = engine.onEvent((e) => {
      if (e.name === 'job:finished' && e.payload.kind === 'upgrade') result = e.payload.result;
    });
    await call(engine, 'kb:info', { kb: 'old' });
    const state = (await engine.jobs.settled(upgradeJobs().at(-1)!.jobId)) as JobState;
    off();
    return { ...state, result };
  };

  it('keeps the pages of the PDFs still there, records the one gone, and is not due again', async () => {
    const job = await runOnOpen();
    expect(job).toMatchObject({ status: 'done', result: { recentred: [], pagesKept: 2, pagesUnavailable: 1 } });
    const pages = keptPages();
    expect(pages.map((p) => [p.document_id, p.page])).toEqual([
      [ids.first, 1],
      [ids.first, 2],
      [ids.second, 1],
      [ids.second, 2],
    ]);
    expect(pages.map((p) => p.text)).toEqual([...pdfPages('first'), ...pdfPages('second')]);
    expect(await call(engine, 'kb:upgrade', { kb: 'old' })).toEqual({ jobId: null });
  });

  it('cancelled after a document, it goes on from the next one and ends with the same pages', async () => {
    const off = engine.onEvent((event) => {
      if (event.name === 'job:progress' && event.payload.stage === 'pages' && event.payload.done === 1)
        engine.jobs.cancel(event.payload.jobId);
    });
    const cancelled = await runOnOpen();
    off();
    expect(cancelled.status).toBe('cancelled');
    expect(new Set(keptPages().map((p) => p.document_id))).toEqual(new Set([ids.first]));
    const { jobId } = await call<{ jobId: string }>(engine, 'kb:upgrade', { kb: 'old' });
    expect(await engine.jobs.settled(jobId!)).toMatchObject({ status: 'done' });
    expect(keptPages().map((p) => p.text)).toEqual([...pdfPages('first'), ...pdfPages('second')]);
  });
});
