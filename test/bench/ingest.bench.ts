import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fixedSizeChunk, loadDocument, semanticChunk, splitSentences } from '../../src-main/engine/ingest/index.js';
import { toErrorData } from '../../src-main/engine/base/errors.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { writePdf } from '../support/pdfWriter.js';
import { formatThroughput } from './support/formatThroughput.js';

/**
 * Ingest throughput and memory on hostile sizes:
 *   --mb N           single-line text size in MB (default 200)
 *   --semantic-mb N  slice of it for the semantic chunker with the n-gram embedder (default 2)
 *   --pages N        pages of the empty PDF (default 10000)
 *   --formats        only the per-format part (see formatThroughput); --scan-pages N: pages of its scanned PDF (default 2)
 * Baselines measured in the same run: raw readFile + sha256 (the loader's floor) and a plain
 * regex word scan (the chunker's floor). Peak RSS is the process high-water mark after each step.
 */
export async function run(args: string[]): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const mb = arg('mb', 200);
  const semanticMb = arg('semantic-mb', 2);
  const pageCount = arg('pages', 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-bench-ingest-'));
  const peak = () => `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`;
  const rate = (bytes: number, ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`;
  const time = async <T>(fn: () => Promise<T> | T): Promise<[T, number]> => {
    const t = performance.now();
    const value = await fn();
    return [value, performance.now() - t];
  };
  try {
    console.log(`ingest bench: start RSS ${peak()}`);
    await formatThroughput(dir, { scanPages: arg('scan-pages', 2) });
    if (args.includes('--formats')) return;
    // A single line of sentences, written in 1 MB pieces so generation stays small.
    const words = [
      'alpha',
      'beta',
      'gamma',
      'delta',
      'epsilon',
      'zeta',
      'theta',
      'iota',
      'kappa',
      'lambda',
      'knowledge',
      'graph',
    ];
    let piece = '';
    for (let i = 0, start = true; piece.length < 1e6; i++) {
      const word = words[(i * 7) % words.length]!;
      piece += (start ? word[0]!.toUpperCase() + word.slice(1) : word) + (i % 11 === 10 ? '. ' : ' ');
      start = i % 11 === 10;
    }
    const big = join(dir, 'big.txt');
    const out = createWriteStream(big);
    for (let written = 0; written < mb * 1e6; written += piece.length) if (!out.write(piece)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    const bytes = Math.ceil((mb * 1e6) / piece.length) * piece.length;
    console.log(
      `ingest bench: ${(bytes / 1e6).toFixed(0)} MB single-line text, ${pageCount}-page empty PDF; start RSS ${peak()}`,
    );

    const [refusal, refuseMs] = await time(() =>
      loadDocument(big).then(
        () => 'loaded',
        (e: unknown) => toErrorData(e).message,
      ),
    );
    console.log(
      `  default limits: ${refusal.replace(big, 'big.txt')} in ${refuseMs.toFixed(1)} ms; peak RSS ${peak()}`,
    );

    const pdfPath = join(dir, 'empty.pdf');
    writeFileSync(pdfPath, writePdf({ pages: Array.from({ length: pageCount }, () => '') }));
    const [pdfResult, pdfMs] = await time(() =>
      loadDocument(pdfPath).then(
        () => 'loaded',
        (e: unknown) => toErrorData(e).message,
      ),
    );
    console.log(
      `  ${pageCount}-page empty PDF: ${pdfResult.replace(pdfPath, 'empty.pdf')} in ${(pdfMs / 1000).toFixed(1)} s (${(pdfMs / pageCount).toFixed(2)} ms/page); peak RSS ${peak()}`,
    );

    const [, rawMs] = await time(async () =>
      createHash('sha256')
        .update(await readFile(big))
        .digest('hex'),
    );
    const limits = { maxTextFileBytes: bytes + 1, maxTextChars: bytes + 1 };
    const [doc, loadMs] = await time(() => loadDocument(big, limits));
    console.log(
      `  load (raised limits): ${rate(bytes, loadMs)} vs raw readFile+sha256 ${rate(bytes, rawMs)} (ratio ${(rawMs / loadMs).toFixed(2)}); language ${doc.language}; peak RSS ${peak()}`,
    );

    const [wordCount, scanMs] = await time(() => {
      let n = 0;
      for (const _ of doc.text.matchAll(/\S+/g)) n++;
      return n;
    });
    const [chunks, fixedMs] = await time(() => fixedSizeChunk(doc.text, { language: doc.language }));
    console.log(
      `  fixed 1000/200 chunker: ${rate(bytes, fixedMs)} (${chunks.length} chunks) vs regex word scan ${rate(bytes, scanMs)} (${wordCount} words; ratio ${(scanMs / fixedMs).toFixed(2)}); peak RSS ${peak()}`,
    );

    const slice = doc.text.slice(0, semanticMb * 1e6);
    const [sentences, sentMs] = await time(() => splitSentences(slice, 'en').length);
    const embedder = new NgramEmbedder(256);
    const [semantic, semMs] = await time(() => semanticChunk(slice, { embedder, language: 'en' }));
    console.log(
      `  semantic chunker on ${semanticMb} MB: ${rate(slice.length, semMs)} (${semantic.length} chunks, ${embedder.calls} embed calls, n-gram embedder) ` +
        `vs sentence split alone ${rate(slice.length, sentMs)} (${sentences} sentences); peak RSS ${peak()}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
