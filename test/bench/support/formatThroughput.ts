import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentLoader } from '../../../src-main/engine/ingest/load/DocumentLoader.js';
import { writePdf } from '../../support/pdfWriter.js';
import { scanOf, writeScanPdf } from '../../support/scanWriter.js';

const PRODUCERS = resolve(fileURLToPath(import.meta.url), '../../../fixtures/producers');

/** A page of 40 lines of prose, as a letter would fill it. */
const pageLines = (page: number) =>
  Array.from(
    { length: 40 },
    (_, i) => `Line ${i + 1} of page ${page}: the ferry left Marlow for Henley with twelve passengers aboard.`,
  );

/**
 * `npm run bench ingest`'s per-format part: each format loaded through the DocumentLoader the app
 * uses (its own thread, the default per-document limits: 2,048 MiB and 300 s), files from real
 * producers (test/fixtures/producers: LibreOffice 7.4, CPython's email) and PDFs the suite writes:
 * a 200-page text PDF, and a scanned PDF of full 40-line pages (US Letter at 200 dpi) read by OCR
 * in English. Each file is loaded until 2 s have passed (at least 3 times); the first load of a
 * thread (PDF.js and the OCR language data loading) is left out by a warm-up. Prints MB/s and, for
 * PDFs, pages/s or seconds per page, and the peak RSS so far (the loader thread is in this process).
 */
export async function formatThroughput(dir: string, { scanPages = 2 }: { scanPages?: number } = {}): Promise<void> {
  const files: { label: string; path: string; pages?: number; ocr?: boolean }[] = [
    ['club.docx', 'DOCX'],
    ['club.odt', 'ODT'],
    ['club.rtf', 'RTF'],
    ['people.xlsx', 'XLSX'],
    ['people.ods', 'ODS'],
    ['talk.pptx', 'PPTX'],
    ['talk.odp', 'ODP'],
    ['book.epub', 'EPUB'],
    ['minutes.eml', 'EML'],
    ['letters.mbox', 'MBOX'],
  ].map(([name, label]) => {
    const path = join(dir, name!);
    copyFileSync(join(PRODUCERS, name!), path);
    return { label: label!, path };
  });
  const textPdf = join(dir, 'text.pdf');
  writeFileSync(textPdf, writePdf({ pages: Array.from({ length: 200 }, (_, p) => pageLines(p + 1).join('\n')) }));
  files.push({ label: 'PDF (text)', path: textPdf, pages: 200 });
  const scanPdf = join(dir, 'scan.pdf');
  writeFileSync(scanPdf, writeScanPdf(Array.from({ length: scanPages }, (_, p) => scanOf(pageLines(p + 1)))));
  files.push({ label: 'PDF (scan, OCR eng)', path: scanPdf, pages: scanPages, ocr: true });

  const loader = new DocumentLoader();
  try {
    const options = { ocr: { languages: ['eng'] } };
    await loader.load(scanPdf, options); // warm-up: PDF.js, the OCR worker and its language data
    console.log('  per format (DocumentLoader, default limits; MB of file read per second):');
    for (const file of files) {
      const bytes = statSync(file.path).size;
      const times: number[] = [];
      let chars = 0;
      const start = performance.now();
      while (times.length < 3 || (performance.now() - start < 2000 && times.length < 50)) {
        const t = performance.now();
        const doc = await loader.load(file.path, options);
        // A mail file's text is in its parts (messages, attachments).
        chars = doc.text.length + (doc.parts ?? []).reduce((n, p) => n + (p.loaded?.text.length ?? 0), 0);
        times.push(performance.now() - t);
      }
      const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      const perPage = file.pages
        ? file.ocr
          ? `, ${(median / 1000 / file.pages).toFixed(1)} s per page (goal ≤ 10)`
          : `, ${((file.pages * 1000) / median).toFixed(0)} pages/s`
        : '';
      console.log(
        `    ${file.label.padEnd(20)} ${(bytes / 1024).toFixed(1).padStart(7)} KiB, ${String(chars).padStart(6)} chars: ${median.toFixed(0).padStart(6)} ms median of ${times.length}, ${(bytes / 1e6 / (median / 1000)).toFixed(2)} MB/s${perPage}; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
      );
    }
  } finally {
    await loader.dispose();
  }
}
