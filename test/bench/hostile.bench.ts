/**
 * Hostile input (issues 9, 17): a folder of bad files — corrupt, truncated and encrypted PDFs, a PDF of
 * 10,000 empty pages, a PDF whose content inflates to hundreds of MiB of text and one whose image
 * decodes to 183 MiB of pixels (runaway parses, stopped by the per-document limits), a page with
 * 32,768 annotations, a DOCX zip bomb, deeply nested HTML, a long single-line text, invalid UTF-8,
 * UTF-16 without BOM, NUL bytes, a symlink loop, files changed or deleted after the scan and one
 * truncated while being read — added with one good document through docs:add + index:start, as a
 * front door does. Prints each file's outcome and reason, the time and the peak RSS (against the
 * same run over the good document alone); the good document must index. The files are written by
 * a child process, so the bench's own peak RSS is the engine's (documents are parsed in worker
 * threads of this process), not that of building a 64 MiB bomb in memory.
 *
 *   npm run bench hostile
 *   npm run bench hostile -- --big          # the single-line text is 200 MB (refused by size, before reading)
 *   npm run bench hostile -- --memory-mb 256 --time-s 120   # the per-document limits (settings documentLimits; these are the defaults here)
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Engine } from '../../src-main/engine/api/Engine.js';
import type { AddDocumentsResult, DocumentPage, JobProgress } from '../../src-main/engine/api/contract.js';
import { appPaths } from '../../src-main/engine/api/paths.js';
import { writeCrowdedAnnotationsPdf, writeImageBombPdf, writeInflatingPdf } from '../support/pdfBuilder.js';
import { writePdf } from '../support/pdfWriter.js';
import { ScriptedLlm } from '../support/ScriptedLlm.js';
import { writeDocx } from '../support/zipWriter.js';
import { numberArg } from './support/benchArgs.js';
import {
  SyntheticEmbedder,
  syntheticRules,
  writeSyntheticCorpus,
} from '../unit/reliability/support/syntheticCorpus.js';

const KB = 'hostile';

export async function run(args: string[]): Promise<void> {
  const big = args.includes('--big');
  const limits = {
    memoryMb: numberArg(args, '--memory-mb', 256),
    timeSeconds: numberArg(args, '--time-s', 120, { integer: false }),
  };
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-hostile-'));
  try {
    const baseline = await indexFolder(dir, 'baseline', limits, () => undefined);
    const folder = join(dir, 'hostile');
    const hostile = await indexFolder(dir, 'hostile', limits, () => writeHostileCorpus(folder, big), folder);
    console.log(`per-document limits: ${limits.memoryMb} MiB, ${limits.timeSeconds} s`);
    console.log(
      `baseline (the good document alone): ${(baseline.ms / 1000).toFixed(2)} s, peak RSS ${mb(baseline.rss)}`,
    );
    console.log(`peak RSS before the hostile job (its files written by a child process): ${mb(hostile.rssBeforeJob)}`);
    console.log(
      `hostile folder (${hostile.files} files): ${(hostile.ms / 1000).toFixed(2)} s (${(hostile.ms / baseline.ms).toFixed(1)}× baseline), peak RSS ${mb(hostile.rss)} (+${mb(hostile.rss - baseline.rss)})`,
    );
    for (const line of hostile.timing) console.log(`  ${line}`);
    console.log('per file (docs:add skips, then each document: status: reason):');
    for (const line of hostile.report) console.log(`  ${line}`);
    console.log(`job: ${hostile.status}${hostile.error ? ` (${hostile.error})` : ''}; good document: ${hostile.good}`);
    if (hostile.good !== 'indexed' || hostile.status !== 'done')
      throw new Error('the good document did not index next to the hostile files');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes the files of the hostile folder in a child process; returns what to do after docs:add
 * (before index:start) and while the job runs (the file truncated while being read).
 */
function writeHostileCorpus(folder: string, big: boolean): { afterAdd: () => void; duringJob: () => void } {
  const self = pathToFileURL(fileURLToPath(import.meta.url)).href;
  const script = `const { writeHostileFiles } = await import(${JSON.stringify(self)}); writeHostileFiles(${JSON.stringify(folder)}, ${big});`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`writing the hostile files failed: ${child.stderr}`);
  const deleted = join(folder, 'deleted-after-scan.txt');
  const changed = join(folder, 'changed-after-scan.txt');
  const moving = join(folder, 'aaa-truncated-while-read.txt');
  return {
    afterAdd: () => {
      unlinkSync(deleted);
      appendFileSync(changed, ' Changed.');
    },
    duringJob: () => truncateSync(moving, 1000),
  };
}

/** The hostile files (run in the child process {@link writeHostileCorpus} starts). */
export function writeHostileFiles(folder: string, big: boolean): void {
  mkdirSync(folder, { recursive: true });
  const put = (name: string, data: string | Uint8Array): string => {
    const path = join(folder, name);
    writeFileSync(path, data);
    return path;
  };
  put('corrupt.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> this is not a pdf');
  put('truncated.pdf', writePdf({ pages: ['Hello there, this page is cut off.'] }).subarray(0, 90));
  put('encrypted.pdf', writePdf({ pages: ['secret'], encrypted: true }));
  put('empty-pages.pdf', writePdf({ pages: Array.from({ length: 10_000 }, () => '') }));
  // ~0.7 MB on disk, 256 MiB (with --big 1 GiB) of text operators once inflated.
  put('inflating.pdf', writeInflatingPdf(big ? 1024 : 256));
  // ~1 KiB on disk, an 8000×8000 RGB image (183 MiB of pixels, more while PDF.js decodes it for OCR).
  put('image-bomb.pdf', writeImageBombPdf(8000));
  // 32,768 annotations on one page (pdf.js's bug1978317.pdf has as many): half links, half comments.
  put('crowded-annotations.pdf', writeCrowdedAnnotationsPdf({ text: 'Minutes', links: 16_384, comments: 16_384 }));
  // 64 MiB of zeros deflate to ~64 KiB: a 1000× ratio.
  put('bomb.docx', writeDocx(['hi'], [{ name: 'word/media/bomb.bin', data: Buffer.alloc(64 * 1024 ** 2) }]));
  const depth = 200_000;
  put(
    'nested.html',
    `<!doctype html><html><body>${'<div>'.repeat(depth)}Deep text.${'</div>'.repeat(depth)}</body></html>`,
  );
  // One line, no sentence end: the chunker must split it by size. Written in 1 MiB pieces (the bench's own memory stays small).
  writeRepeated(join(folder, big ? 'one-line-200MB.txt' : 'one-line-2MB.txt'), 'word ', big ? 200 : 2);
  put(
    'invalid-utf8.txt',
    Buffer.concat([
      Buffer.from('Start of a line '),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]),
      Buffer.from(' end of the line.\n').fill(0xff, 4, 6),
    ]),
  );
  put(
    'utf16-no-bom.txt',
    Buffer.from(
      'Ada Kestrel is the friend of Bruno Ravenworth. This text is UTF-16 without a byte order mark.',
      'utf16le',
    ),
  );
  put('nul-bytes.txt', 'Some text\0with NUL bytes\0inside it, which a text file should not have.');
  mkdirSync(join(folder, 'loop'));
  symlinkSync(join(folder, 'loop'), join(folder, 'loop', 'again'));
  symlinkSync(join(folder, 'loop', 'self'), join(folder, 'loop', 'self'));
  put('deleted-after-scan.txt', 'This file is gone by the time the job reads it.');
  put('changed-after-scan.txt', 'This file changes after it was scanned.');
  // Read first (sorted first), in 1 MiB reads: truncated under the reader.
  writeRepeated(join(folder, 'aaa-truncated-while-read.txt'), 'Lines of text that go on for a while.\n', 48);
}

/** Writes `mib` MiB of `unit` repeated, a MiB at a time. */
function writeRepeated(path: string, unit: string, mib: number): string {
  const piece = unit.repeat(Math.ceil(1024 ** 2 / unit.length)).slice(0, 1024 ** 2);
  writeFileSync(path, '');
  for (let i = 0; i < mib; i++) appendFileSync(path, piece);
  return path;
}

interface FolderRun {
  ms: number;
  timing: string[];
  rss: number;
  /** Peak RSS before docs:add (what writing the files cost the bench itself). */
  rssBeforeJob: number;
  files: number;
  report: string[];
  status: string;
  error: string | null;
  good: string;
}

/** A fresh engine and process-wide peak RSS; indexes the good document plus whatever `write` adds to `folder`. */
async function indexFolder(
  dir: string,
  name: string,
  limits: { memoryMb: number; timeSeconds: number },
  write: () => { afterAdd: () => void; duringJob: () => void } | undefined,
  folder = join(dir, name),
): Promise<FolderRun> {
  const dataDir = join(dir, `${name}-data`);
  writeSyntheticCorpus(folder, 1, { prefix: 'good' });
  const hooks = write();
  const engine = await Engine.create({
    paths: appPaths(resolve(import.meta.dirname, '../..'), dataDir, join(dataDir, 'models')),
    models: { llm: new ScriptedLlm(syntheticRules()), embedder: new SyntheticEmbedder() },
  });
  try {
    await ok(engine, 'system:setSettings', { settings: { documentLimits: limits } });
    await ok(engine, 'kb:create', { name: KB });
    const rssBeforeJob = process.resourceUsage().maxRSS * 1024;
    const started = performance.now();
    const added = await ok<AddDocumentsResult>(engine, 'docs:add', { kb: KB, paths: [folder] });
    hooks?.afterAdd();
    const { jobId } = await ok<{ jobId: string }>(engine, 'index:start', { kb: KB });
    let truncated = false;
    // Time per stage, and per ingested document (progress names the document just done; events
    // are throttled to 100 ms, so a quick document's time is added to the next one reported).
    const timeline: { stage: string; message: string; at: number }[] = [];
    const off = engine.onEvent((e) => {
      if (e.name !== 'job:progress') return;
      const p = e.payload as JobProgress;
      timeline.push({ stage: p.stage, message: p.message, at: performance.now() });
      // The first document is being read once ingest has started: truncate it under the reader.
      if (!truncated && p.stage === 'ingest') {
        truncated = true;
        setTimeout(() => hooks?.duringJob(), 2);
      }
    });
    const state = (await engine.jobs.settled(jobId))!;
    off();
    const ms = performance.now() - started;
    const stages = new Map<string, number>();
    const ingest: string[] = [];
    timeline.forEach((t, i) => {
      const next = timeline[i + 1]?.at ?? started + ms;
      stages.set(t.stage, (stages.get(t.stage) ?? 0) + next - t.at);
      const previous = timeline[i - 1];
      if (t.stage === 'ingest' && t.message && previous)
        ingest.push(`${t.message} ${((t.at - previous.at) / 1000).toFixed(2)} s`);
    });
    const timing = [
      `stages: ${[...stages].map(([stage, d]) => `${stage} ${(d / 1000).toFixed(2)} s`).join(', ')}`,
      `ingest, time up to each reported document: ${ingest.join(', ')}`,
    ];
    const page = await ok<DocumentPage>(engine, 'docs:list', { kb: KB, limit: 1000, sort: 'title' });
    const report = [
      ...added.errors.map((e) => `${basename(e.path)}: skipped at docs:add: ${e.reason}`),
      ...page.rows.map(
        (d) =>
          `${basename(d.path)}: ${d.status}${d.error ? `: ${d.error.replace(`${d.path}: `, '')}` : ` (${d.chunkCount} chunks, ${d.tripleCount} triples)`}`,
      ),
    ];
    const good = page.rows.find((d) => basename(d.path).startsWith('good-'))?.status ?? 'missing';
    return {
      ms,
      timing,
      rss: process.resourceUsage().maxRSS * 1024,
      rssBeforeJob,
      files: added.added.length + added.errors.length,
      report,
      status: state.status,
      error: state.error?.message ?? null,
      good,
    };
  } finally {
    await engine.dispose();
  }
}

async function ok<T = unknown>(engine: Engine, method: string, payload: unknown): Promise<T> {
  const reply = await engine.call(method, payload);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.code}: ${reply.error.message}`);
  return reply.value as T;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
