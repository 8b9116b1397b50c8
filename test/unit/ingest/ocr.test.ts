import { existsSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { DOCUMENT_EXTENSIONS } from '../../../src-main/engine/api/documentExtensions.js';
import { formatForPath } from '../../../src-main/engine/ingest/load/formats.js';
import { pageAt } from '../../../src-main/engine/ingest/chunk/chunkRecord.js';
import { DocumentLoader } from '../../../src-main/engine/ingest/load/DocumentLoader.js';
import { Ocr, ocrThreadMemoryBytes } from '../../../src-main/engine/ingest/load/ocr/Ocr.js';
import { OCR_LANGUAGE_DIR } from '../../../src-main/engine/ingest/load/ocr/ocrLanguages.js';
import { unreadableReason } from '../../../src-main/engine/ingest/load/textReadability.js';
import type { LoadedDocument } from '../../../src-main/engine/ingest/types.js';
import { scanOf, tiffOf, writeScanPdf } from '../../support/scanWriter.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('ocr');

/** Share of the expected words (lower case, punctuation aside) found among the recognised ones. */
function wordRecall(expected: string, actual: string): number {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const found = new Set(words(actual));
  const wanted = words(expected);
  return wanted.filter((w) => found.has(w)).length / wanted.length;
}

/** Share of the expected Han characters found in the recognised text (Chinese has no spaces to split words at). */
function characterRecall(expected: string, actual: string): number {
  const left = [...actual];
  const wanted = [...expected].filter((c) => /\p{Script=Han}/u.test(c));
  let found = 0;
  for (const c of wanted) {
    const i = left.indexOf(c);
    if (i >= 0) {
      found++;
      left.splice(i, 1);
    }
  }
  return found / wanted.length;
}

const english = ['The harbour master counted twelve ships', 'before the storm reached the northern coast.'];
const italian = [
  'La città di Venezia è costruita su più di cento',
  'isole collegate da ponti, perché il mare è vicino.',
];
const chinese = ['北京是中华人民共和国的首都', '长城是世界上最著名的建筑之一'];

function expectOcrPage(doc: LoadedDocument, page: number, reason: string): void {
  const record = doc.ocr?.pages.find((p) => p.page === page);
  expect(record, `page ${page} read by OCR`).toMatchObject({ page, reason });
  expect(record!.confidence).toBeGreaterThanOrEqual(60);
  expect(record!.confidence).toBeLessThanOrEqual(100);
}

describe('scanned pages are read by OCR, offline', () => {
  it('an English scan in a PDF (an image, no text layer): its words, page 1, the confidence in the record and the note', async () => {
    const doc = await loadDocument(put('en.pdf', writeScanPdf([scanOf(english)])), { ocr: { languages: ['eng'] } });
    expect(wordRecall(english.join(' '), doc.text)).toBeGreaterThanOrEqual(0.8);
    expect(doc.pages).toEqual([{ page: 1, startOffset: 0 }]);
    expect(doc.ocr?.languages).toEqual(['eng']);
    expectOcrPage(doc, 1, 'no text layer');
    expect(doc.warnings).toEqual([`page 1 read by OCR (mean confidence ${doc.ocr!.pages[0]!.confidence}%; eng)`]);
    expect(doc.language).toBe('en');
  });

  it('an Italian scan: accented words are read, the language is detected from the OCR text', async () => {
    const doc = await loadDocument(put('it.pdf', writeScanPdf([scanOf(italian)])), { ocr: { languages: ['ita'] } });
    expect(wordRecall(italian.join(' '), doc.text)).toBeGreaterThanOrEqual(0.8);
    expect(doc.text).toMatch(/città|perché/);
    expectOcrPage(doc, 1, 'no text layer');
    expect(doc.language).toBe('it');
  });

  it('a Chinese scan (chi_sim): the characters are read, with no spaces put between them', async () => {
    const doc = await loadDocument(put('zh.pdf', writeScanPdf([scanOf(chinese, { script: 'hans' })])), {
      ocr: { languages: ['chi_sim'] },
    });
    expect(characterRecall(chinese.join(''), doc.text)).toBeGreaterThanOrEqual(0.8);
    expect(doc.text).not.toMatch(/\p{Script=Han} \p{Script=Han}/u);
    expectOcrPage(doc, 1, 'no text layer');
    expect(doc.language).toBe('zh');
  });

  it('a mixed PDF with every installed language: text pages keep their text layer, the scanned page between them is OCRd in its place', async () => {
    const doc = await loadDocument(
      put(
        'mixed.pdf',
        writeScanPdf([{ text: 'Page one has a text layer.' }, scanOf(english), { text: 'Page three too.' }]),
      ),
    );
    expect(doc.ocr?.languages).toEqual(['eng', 'deu', 'fra', 'ita', 'spa', 'chi_sim']);
    expect(doc.ocr?.pages.map((p) => p.page)).toEqual([2]);
    expectOcrPage(doc, 2, 'no text layer');
    expect(doc.text.startsWith('Page one has a text layer.\n\n')).toBe(true);
    expect(doc.text.endsWith('\n\nPage three too.')).toBe(true);
    const pages = doc.pages!;
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    const scanned = doc.text.slice(pages[1]!.startOffset, pages[2]!.startOffset);
    expect(wordRecall(english.join(' '), scanned)).toBeGreaterThanOrEqual(0.8);
    expect(pageAt(pages, doc.text.indexOf('harbour'))).toBe(2);
    expect(pageAt(pages, doc.text.indexOf('three'))).toBe(3);
  });

  it.each([
    ['a font mapping its glyphs into private use', 'private use'],
    ['glyph ids in a font with neither font program nor Unicode map', 'glyph ids'],
  ] as const)(
    'a scan under a garbage text layer (%s): the page is OCRd and its real text indexed, none of the garbage',
    async (_, font) => {
      const bytes = writeScanPdf([{ scan: scanOf(english), garbageTextLayer: english.join(' '), font }]);
      // Without OCR the layer is all there is, and it is refused as unreadable, not indexed.
      await expect(loadDocument(put(`off-${font}.pdf`, bytes), { ocr: { disabled: true } })).rejects.toThrow(
        /no readable text: page 1: text unreadable/,
      );
      const doc = await loadDocument(put(`${font}.pdf`, bytes), { ocr: { languages: ['eng'] } });
      expect(wordRecall(english.join(' '), doc.text)).toBeGreaterThanOrEqual(0.8);
      // The page's text is what OCR read, with nothing of the layer beside it.
      expect(unreadableReason(doc.text)).toBeUndefined();
      expect(doc.text.split(/\s+/).length).toBeLessThanOrEqual(english.join(' ').split(' ').length + 2);
      expect(doc.ocr?.pages.map((p) => p.page)).toEqual([1]);
      expectOcrPage(doc, 1, 'unreadable text');
      expect(doc.warnings).toEqual([`page 1 read by OCR (mean confidence ${doc.ocr!.pages[0]!.confidence}%; eng)`]);
    },
  );

  it('OCR text that is itself unreadable (an overprinted scan read as runs repeated without spaces) is not used: the page stays unread', async () => {
    const overprinted = ['HarbourHarbourHarbourHarbourHarbour', 'MasterMasterMasterMasterMasterMaster'];
    await expect(
      loadDocument(put('overprinted.pdf', writeScanPdf([scanOf(overprinted)])), { ocr: { languages: ['eng'] } }),
    ).rejects.toThrow(/no text layer in 1 page\(s\) \(scanned images\?\); OCR read no text in it/);
  });

  it('PNG, JPEG and TIFF scans are documents: read as page 1', async () => {
    const scan = scanOf(english);
    const files = {
      'scan.png': [scan.png, 'image/png'],
      'scan.jpg': [scan.jpeg, 'image/jpeg'],
      'scan.tiff': [tiffOf(scan), 'image/tiff'],
    } as const;
    for (const [name, [bytes, mime]] of Object.entries(files)) {
      const doc = await loadDocument(put(name, bytes), { ocr: { languages: ['eng'] } });
      expect(doc.mime, name).toBe(mime);
      expect(wordRecall(english.join(' '), doc.text), name).toBeGreaterThanOrEqual(0.8);
      expect(doc.pages).toEqual([{ page: 1, startOffset: 0 }]);
      expectOcrPage(doc, 1, 'image');
    }
  });

  it('a multi-page TIFF is read page by page, each with its page number; a blank page is left out with a note', async () => {
    const third = ['The third page lists the crew of the lifeboat', 'and the names of the rescued sailors.'];
    const blank = scanOf(['']);
    const tiff = tiffOf([scanOf(english), scanOf(italian), blank, scanOf(third)]);
    const doc = await loadDocument(put('fax.tif', tiff), { ocr: { languages: ['eng', 'ita'] } });
    expect(doc.pages!.map((p) => p.page)).toEqual([1, 2, 4]);
    const pageText = (i: number) => doc.text.slice(doc.pages![i]!.startOffset, doc.pages![i + 1]?.startOffset);
    expect(wordRecall(english.join(' '), pageText(0))).toBeGreaterThanOrEqual(0.8);
    expect(wordRecall(italian.join(' '), pageText(1))).toBeGreaterThanOrEqual(0.8);
    expect(wordRecall(third.join(' '), pageText(2))).toBeGreaterThanOrEqual(0.8);
    for (const page of [1, 2, 4]) expectOcrPage(doc, page, 'image');
    expect(doc.ocr!.pages.map((p) => p.page)).toEqual([1, 2, 4]);
    expect(doc.warnings).toContain('page 3: OCR read no text, left out');
  });

  it('scans are documents wherever files are picked: folders (scan, watch) and the file picker filter', () => {
    for (const [path, format] of [
      ['a/scan.PNG', 'png'],
      ['scan.jpg', 'jpeg'],
      ['scan.jpeg', 'jpeg'],
      ['fax.tif', 'tiff'],
      ['fax.tiff', 'tiff'],
    ] as const)
      expect(formatForPath(path), path).toBe(format);
    expect(DOCUMENT_EXTENSIONS).toEqual(expect.arrayContaining(['pdf', 'png', 'jpg', 'jpeg', 'tif', 'tiff']));
  });

  it('with OCR turned off a scan is refused as before, and so is an image', async () => {
    const pdf = put('off.pdf', writeScanPdf([scanOf(english)]));
    await expect(loadDocument(pdf, { ocr: { disabled: true } })).rejects.toThrow(/no text layer in 1 page/);
    await expect(loadDocument(put('off.png', scanOf(english).png), { ocr: { disabled: true } })).rejects.toThrow(
      /read by OCR, which is turned off/,
    );
  });

  it('a blank image has no text: BAD_INPUT, not an empty document', async () => {
    await expect(loadDocument(put('blank.png', scanOf([]).png), { ocr: { languages: ['eng'] } })).rejects.toMatchObject(
      {
        code: 'BAD_INPUT',
        message: expect.stringMatching(/OCR read no text in the image/),
      },
    );
  });

  it('language data comes from node_modules: the langPath is a local folder, and a langPath URL is refused, not fetched', async () => {
    expect(OCR_LANGUAGE_DIR).not.toMatch(/^[a-z]+:\/\//);
    expect(statSync(OCR_LANGUAGE_DIR).isDirectory()).toBe(true);
    expect(existsSync(`${OCR_LANGUAGE_DIR}/chi_sim/4.0.0_best_int/chi_sim.traineddata.gz`)).toBe(true);
    await expect(Ocr.create({ languages: ['eng'], langPath: 'https://cdn.invalid/tessdata' })).rejects.toThrow(
      /OCR runs offline: refused to fetch https:\/\/cdn\.invalid\/tessdata\/eng\.traineddata\.gz/,
    );
    await expect(Ocr.create({ languages: ['xyz'] })).rejects.toThrow(/OCR language data not installed: xyz/);
  });
});

describe('OCR runs in the document thread, under its limits', () => {
  const loader = new DocumentLoader({ memoryMb: 2048 });
  afterAll(() => loader.dispose());

  it('a scanned PDF loads through the loader thread with its OCR record', async () => {
    const doc = await loader.load(put('thread.pdf', writeScanPdf([scanOf(english)])), { ocr: { languages: ['eng'] } });
    expect(wordRecall(english.join(' '), doc.text)).toBeGreaterThanOrEqual(0.8);
    expectOcrPage(doc, 1, 'no text layer');
  });

  it('the OCR thread reports its memory (its wasm heap), which the loader thread adds to its own for the limit; it ends with the OCR', async () => {
    const ocr = await Ocr.create({ languages: ['eng'] });
    await ocr.recognize(scanOf(english).png);
    // The eng model and the page's image in the wasm heap: tens of MiB, reported every 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(ocrThreadMemoryBytes()).toBeGreaterThan(20 * 1024 ** 2);
    await ocr.dispose();
    expect(ocrThreadMemoryBytes()).toBe(0);
  });
});
