import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePdf } from '../../support/pdfWriter.js';
import { A4_PIXELS, scanOf, writeScanPdf } from '../../support/scanWriter.js';
import type { FormatMeasure } from './measureFormat.js';

const PRODUCERS = resolve(fileURLToPath(import.meta.url), '../../../fixtures/producers');
const MEASURE = resolve(fileURLToPath(import.meta.url), '../measureFormat.ts');

/** A page of 40 lines of prose, as a letter would fill it. */
const pageLines = (page: number) =>
  Array.from(
    { length: 40 },
    (_, i) => `Line ${i + 1} of page ${page}: the ferry left Marlow for Henley with twelve passengers aboard.`,
  );

/**
 * `npm run bench ingest`'s per-format part: each format loaded through the DocumentLoader the app
 * uses (its own thread, the default per-document limits: 2,048 MiB and 300 s), in a process of its
 * own per format (measureFormat.ts), so the peak RSS printed is that of the loader and its thread
 * on that file. Files from real producers (test/fixtures/producers: LibreOffice 7.4, CPython's
 * email) and PDFs the suite writes: a 200-page text PDF, and a scanned PDF of A4 pages at 200 dpi
 * (1654 x 2339 px, 40 lines of prose each) read by OCR in English. Each file is loaded until 2 s
 * have passed (at least 3 times) after a warm-up load (PDF.js, the OCR language data). Prints MB/s
 * and, for PDFs, pages/s or seconds per page.
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
  // Plain text, Markdown and a web page of the same prose, 1 MB each (what the page loaders cost per MB).
  const prose = Array.from({ length: 250 }, (_, p) => pageLines(p + 1).join(' '));
  for (const [name, label, content] of [
    ['prose.txt', 'Text', prose.join('\n\n')],
    ['prose.md', 'Markdown', prose.map((p, i) => `## Page ${i + 1}\n\n${p}`).join('\n\n')],
    [
      'prose.html',
      'HTML',
      `<!doctype html><html lang="en"><head><title>Ferry log</title></head><body><article><h1>Ferry log</h1>${prose.map((p) => `<p>${p}</p>`).join('\n')}</article></body></html>`,
    ],
  ] as const) {
    writeFileSync(join(dir, name), content);
    files.unshift({ label, path: join(dir, name) });
  }
  const textPdf = join(dir, 'text.pdf');
  writeFileSync(textPdf, writePdf({ pages: Array.from({ length: 200 }, (_, p) => pageLines(p + 1).join('\n')) }));
  files.push({ label: 'PDF (text)', path: textPdf, pages: 200 });
  const scanPdf = join(dir, 'scan.pdf');
  writeFileSync(
    scanPdf,
    writeScanPdf(
      Array.from({ length: scanPages }, (_, p) => scanOf(pageLines(p + 1), { size: A4_PIXELS })),
      { a4: true },
    ),
  );
  files.push({ label: 'PDF (scan, OCR eng)', path: scanPdf, pages: scanPages, ocr: true });

  console.log(
    '  per format (DocumentLoader, default limits, each format in a process of its own; MB of file read per second; peak RSS of that process, loader thread included):',
  );
  for (const file of files) {
    const bytes = statSync(file.path).size;
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', MEASURE, JSON.stringify({ path: file.path, ocr: file.ocr ?? false })],
      { encoding: 'utf8' },
    );
    if (child.status !== 0) throw new Error(`measuring ${file.label} failed: ${child.stderr}`);
    const { times, chars, rssBefore, peakRss } = JSON.parse(child.stdout.trim().split('\n').pop()!) as FormatMeasure;
    const median = times[Math.floor(times.length / 2)]!;
    const perPage = file.pages
      ? file.ocr
        ? `, ${(median / 1000 / file.pages).toFixed(1)} s per A4 page (goal ≤ 10)`
        : `, ${((file.pages * 1000) / median).toFixed(0)} pages/s`
      : '';
    const mib = (n: number) => (n / 1024 ** 2).toFixed(0);
    console.log(
      `    ${file.label.padEnd(20)} ${(bytes / 1024).toFixed(1).padStart(7)} KiB, ${String(chars).padStart(6)} chars: ${median.toFixed(0).padStart(6)} ms median of ${times.length}, ${(bytes / 1e6 / (median / 1000)).toFixed(2)} MB/s${perPage}; peak RSS ${mib(peakRss)} MiB (${mib(rssBefore)} before the first load)`,
    );
  }
}
