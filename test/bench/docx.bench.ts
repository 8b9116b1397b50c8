/**
 * DOCX memory: a document whose word/document.xml is about 12.5 MB (the size the issue measured
 * at 791 MB with the DOM-based reader used before), loaded by the streaming reader. Prints the
 * XML size, the load time, and the resident-memory growth over the load (peak RSS after minus
 * RSS before) as a multiple of the XML size; and the same for mammoth (the DOM-based reader Polyhop
 * used before, a dev dependency kept for this baseline) on the same file in the same run.
 *
 *   npm run bench docx
 *   npm run bench docx -- --xml-mb 50
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeZip } from '../support/zipWriter.js';
import { numberArg } from './support/benchArgs.js';

export async function run(args: string[]): Promise<void> {
  const xmlMb = numberArg(args, '--xml-mb', 12.5, { integer: false });
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-docx-'));
  try {
    // Runs with formatting, as Word writes them (most of document.xml is markup), and words drawn
    // at random so the XML compresses like prose (within the zip-bomb ratio limit).
    const words = [
      'river',
      'authority',
      'inspected',
      'lock',
      'gates',
      'Marlow',
      'found',
      'cracks',
      'lower',
      'boats',
      'weir',
      'channel',
      'ferry',
      'walkers',
      'club',
      'regatta',
      'Henley',
      'weeks',
      'council',
      'repairs',
    ];
    let seed = 1;
    const word = () => words[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % words.length]!;
    const sentence = () => Array.from({ length: 12 }, word).join(' ');
    const paragraph = (i: number) =>
      `<w:p><w:pPr><w:pStyle w:val="Normal"/><w:spacing w:after="120"/></w:pPr><w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr><w:t xml:space="preserve">Paragraph ${i}: ${sentence()} </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>${word()}</w:t></w:r><w:r><w:t xml:space="preserve"> ${sentence()}.</w:t></w:r></w:p>`;
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < xmlMb * 1e6; i++) {
      const p = paragraph(i);
      parts.push(p);
      size += p.length;
    }
    const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${parts.join('')}</w:body></w:document>`;
    const path = join(dir, 'report.docx');
    writeFileSync(path, writeZip([{ name: 'word/document.xml', data: xml }]));
    parts.length = 0;
    const xmlBytes = Buffer.byteLength(xml);
    const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;
    console.log(`word/document.xml ${mib(xmlBytes)}`);
    const polyhop = measure(measureScript(path));
    const mammoth = measure(mammothScript(path));
    for (const [name, m] of [
      ['Polyhop (streaming)', polyhop],
      ['mammoth 1.13.0 (baseline)', mammoth],
    ] as const) {
      console.log(
        `${name.padEnd(26)} ${m.chars.toLocaleString('en')} characters in ${(m.ms / 1000).toFixed(2)} s; RSS before ${mib(m.before)}, peak ${mib(m.peak)}: growth ${mib(m.peak - m.before)} (${((m.peak - m.before) / xmlBytes).toFixed(1)}× the XML)`,
      );
    }
    console.log(
      `mammoth / Polyhop: time ×${(mammoth.ms / polyhop.ms).toFixed(1)}, RSS growth ×${((mammoth.peak - mammoth.before) / (polyhop.peak - polyhop.before)).toFixed(1)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Measured {
  before: number;
  peak: number;
  ms: number;
  chars: number;
}

/** Runs a measuring module in a child process of its own, so its peak RSS is the load's, not the bench's. */
function measure(script: string): Measured {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`the measuring process failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as Measured;
}

/** The same measurement with mammoth's raw-text extraction. */
function mammothScript(path: string): string {
  return `const mammoth = (await import('mammoth')).default;
const before = process.memoryUsage.rss();
const t = performance.now();
const { value } = await mammoth.extractRawText({ path: ${JSON.stringify(path)} });
const ms = performance.now() - t;
console.log(JSON.stringify({ before, peak: process.resourceUsage().maxRSS * 1024, ms, chars: value.length }));`;
}

/** A module that loads `path` (the loader imported first, so its code is in the baseline) and prints its figures as JSON. */
function measureScript(path: string): string {
  const loader = pathToFileURL(join(import.meta.dirname, '../../src-main/engine/ingest/index.ts')).href;
  return `const { loadDocument } = await import(${JSON.stringify(loader)});
const before = process.memoryUsage.rss();
const t = performance.now();
const doc = await loadDocument(${JSON.stringify(path)});
const ms = performance.now() - t;
console.log(JSON.stringify({ before, peak: process.resourceUsage().maxRSS * 1024, ms, chars: doc.text.length }));`;
}
