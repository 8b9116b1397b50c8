import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { DocumentPage } from '../../../src-main/engine/api/contract.js';
import { DocumentLoader } from '../../../src-main/engine/ingest/load/DocumentLoader.js';
import { writeGlyphIdPdf, writeImageBombPdf, writeInflatingPdf } from '../../support/pdfBuilder.js';
import { ScriptedLlm } from '../../support/ScriptedLlm.js';
import { seededRandom } from '../../support/seededRandom.js';
import { writeDocx } from '../../support/zipWriter.js';
import { call, runJobToEnd, tempEngine } from '../../support/tempEngine.js';
import { SyntheticEmbedder, syntheticRules, writeSyntheticCorpus } from '../reliability/support/syntheticCorpus.js';
import { useTmpDir } from './tmpDir.js';

const { dir, put } = useTmpDir('isolated');
// 120 KiB on disk, 60 MiB of text operators once inflated: far past a 64 MiB heap as a text layer.
const bomb = put('bomb.pdf', writeInflatingPdf(60));
// 2 MiB of text operators once inflated: well within 128 MiB, and seconds of parsing.
const slowButSmall = put('slow.pdf', writeInflatingPdf(2));
const good = put('good.txt', 'Ada Kestrel lives in Marlow and writes about rivers and the boats that sail them.');

async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  return promise.then(
    () => {
      throw new Error('expected the load to fail');
    },
    (error: { code: string; message: string; details: Record<string, unknown> }) => error,
  );
}

describe('documents load in a thread with limits', () => {
  const loader = new DocumentLoader({ memoryMb: 64 });
  afterAll(() => loader.dispose());

  it('a document that runs away in memory fails with BAD_INPUT naming the memory limit; the next one loads', async () => {
    const error = await failure(loader.load(bomb));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('64 MiB of memory (the per-document memory limit)');
    expect(error.details).toMatchObject({ limit: 'memory', path: bomb });
    expect(loader.hasThread).toBe(false);
    expect((await loader.load(good)).text).toContain('Ada Kestrel');
  });

  it('the limit is the memory the thread may take, not twice it: a 1 KiB PDF whose image decodes to 46 MiB is stopped at 160 MiB', async () => {
    // Decoding the image for OCR takes 190-320 MiB of buffers outside the JS heap (the inflated
    // pixels, their RGBA copy, the copy PDF.js hands its drawing side): past 160, within 320.
    const imageBomb = put('image-bomb.pdf', writeImageBombPdf(4000));
    expect(statSync(imageBomb).size).toBeLessThan(1024);
    await using limited = new DocumentLoader({ memoryMb: 160 });
    const error = await failure(limited.load(imageBomb));
    expect(error).toMatchObject({ code: 'BAD_INPUT', details: { limit: 'memory', measure: 'thread', memoryMb: 160 } });
    // Stopped by the limit, not by twice it (the old threshold): a threshold at 320 MiB trips only
    // on a sample past 320, which this image never reaches. How far past 160 the tripping sample
    // reads is one sampling interval's growth, which a loaded machine stretches (173 read idle, 211
    // in CI at load ~40), so it is not bounded more tightly here.
    expect(error.details['grownMb']).toBeGreaterThan(160);
    expect(error.details['grownMb']).toBeLessThanOrEqual(2 * 160);
  });

  it('memory the rest of the process takes while a document loads does not count against the document', async () => {
    // A model loading or another job: three times the document's whole allowance, resident, taken
    // once the document has started, held until it is done.
    await using innocent = new DocumentLoader({ memoryMb: 128 });
    let elsewhere: Buffer | null = null;
    const document = await innocent.load(slowButSmall, {
      onStarted: () => setImmediate(() => (elsewhere = Buffer.alloc(3 * 2 * 128 * 1024 ** 2, 1))),
    });
    expect(elsewhere).not.toBeNull();
    expect(document.text).toContain('All work and no play');
  });

  it('a document past the time limit fails naming it', async () => {
    await using slow = new DocumentLoader({ timeSeconds: 0.001 });
    const error = await failure(slow.load(bomb));
    expect(error).toMatchObject({ code: 'BAD_INPUT', details: { limit: 'time' } });
    expect(error.message).toContain('the per-document time limit');
  });

  it('the time limit is in seconds: a document is stopped when they have passed, not before; a normal one is never stopped', async () => {
    // The loader's clock is faked (the thread runs for real), so the limit is read in units, not raced.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await using timed = new DocumentLoader({ timeSeconds: 2 });
      expect((await timed.load(good)).text).toContain('Ada Kestrel');
      // The finished load left no timer that could stop a later one.
      expect(vi.getTimerCount()).toBe(0);
      // Whether the thread was still loading 1 ms before the limit and at it (stopping kills it at once).
      const alive: boolean[] = [];
      const loading = timed.load(bomb, {
        // Called just before the limit's timer is set; the checks run once it is set, before the thread can reply.
        onStarted: () =>
          queueMicrotask(() => {
            vi.advanceTimersByTime(1999);
            alive.push(timed.hasThread);
            vi.advanceTimersByTime(1);
            alive.push(timed.hasThread);
          }),
      });
      const error = await failure(loading);
      expect(alive, 'loading at 1.999 s, stopped at 2 s').toEqual([true, false]);
      expect(error).toMatchObject({ code: 'BAD_INPUT', details: { limit: 'time', timeSeconds: 2 } });
      expect(error.message).toContain('longer than 2 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('cancel takes effect mid-document: the thread is stopped, not waited for', async () => {
    const controller = new AbortController();
    let started = false;
    const error = await failure(
      loader.load(bomb, {
        signal: controller.signal,
        onStarted: () => {
          started = true;
          controller.abort();
        },
      }),
    );
    expect(started).toBe(true);
    expect(error.code).toBe('CANCELLED');
    expect(loader.hasThread).toBe(false);
    expect((await loader.load(good)).text).toContain('Ada Kestrel');
  });

  it('an indexing job with a runaway document completes: the document gets the error, the rest index (a partly unreadable one with its note); the limits are settings', async () => {
    const corpus = join(dir, 'corpus');
    writeSyntheticCorpus(corpus, 1, { prefix: 'good' });
    // ~1.3 MB of document.xml in words drawn at random (it compresses like prose): above a 1 MiB DOCX part limit.
    const random = seededRandom(7);
    const words = [
      'river',
      'lock',
      'gates',
      'Marlow',
      'boats',
      'weir',
      'ferry',
      'club',
      'Henley',
      'council',
      'repairs',
      'spring',
    ];
    const bigDocx = put(
      'big.docx',
      writeDocx(
        Array.from({ length: 12_000 }, () =>
          Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(' '),
        ),
      ),
    );
    const partly = put(
      'partly.pdf',
      writeGlyphIdPdf([
        { text: 'Ada Kestrel sailed from Marlow to Henley along the river.' },
        { glyphText: 'Bruno Ravenworth built the boat in the winter' },
      ]),
    );
    const { engine, dispose } = await tempEngine({
      llm: new ScriptedLlm(syntheticRules()),
      embedder: new SyntheticEmbedder(),
    });
    try {
      await call(engine, 'system:setSettings', {
        settings: { documentLimits: { memoryMb: 64, timeSeconds: 600, docxXmlMb: 1 } },
      });
      await call(engine, 'kb:create', { name: 'hostile' });
      await call(engine, 'docs:add', { kb: 'hostile', paths: [corpus, bomb, partly, bigDocx] });
      const job = await runJobToEnd(engine, 'index:start', { kb: 'hostile' });
      expect(job.status).toBe('done');
      const { rows } = await call<DocumentPage>(engine, 'docs:list', { kb: 'hostile', limit: 100 });
      expect(rows.find((d) => basename(d.path) === 'bomb.pdf')).toMatchObject({
        status: 'error',
        error: expect.stringContaining('per-document memory limit'),
      });
      expect(rows.filter((d) => basename(d.path).startsWith('good')).map((d) => d.status)).toEqual(['indexed']);
      expect(rows.find((d) => basename(d.path) === 'big.docx')).toMatchObject({
        status: 'error',
        error: expect.stringContaining('above the 1.0 MiB limit for a DOCX part'),
      });
      expect(rows.find((d) => basename(d.path) === 'partly.pdf')).toMatchObject({
        status: 'indexed',
        error: expect.stringMatching(/^ingest: page 2: text unreadable/),
      });
    } finally {
      await dispose();
    }
  });
});
