// Run by formatThroughput in a process of its own (`node --import tsx measureFormat.ts '<json>'`), so
// that the process's peak RSS is that of one DocumentLoader and its thread loading one file.
import { DocumentLoader } from '../../../src-main/engine/ingest/load/DocumentLoader.js';

export interface FormatMeasure {
  /** Each timed load, ms, sorted. */
  times: number[];
  chars: number;
  /** RSS before the first load (node, tsx, the loader's code), and the process's peak RSS after the last. */
  rssBefore: number;
  peakRss: number;
}

const { path, ocr } = JSON.parse(process.argv[2]!) as { path: string; ocr: boolean };
const loader = new DocumentLoader();
const options = ocr ? { ocr: { languages: ['eng'] } } : {};
const rssBefore = process.memoryUsage.rss();
// Warm-up, left out: the first load of a thread loads PDF.js, and the OCR worker and its language data.
await loader.load(path, options);
const times: number[] = [];
let chars = 0;
const start = performance.now();
while (times.length < 3 || (performance.now() - start < 2000 && times.length < 50)) {
  const t = performance.now();
  const doc = await loader.load(path, options);
  // A mail file's text is in its parts (messages, attachments).
  chars = doc.text.length + (doc.parts ?? []).reduce((n, p) => n + (p.loaded?.text.length ?? 0), 0);
  times.push(performance.now() - t);
}
await loader.dispose();
const measure: FormatMeasure = {
  times: times.sort((a, b) => a - b),
  chars,
  rssBefore,
  peakRss: process.resourceUsage().maxRSS * 1024,
};
console.log(JSON.stringify(measure));
