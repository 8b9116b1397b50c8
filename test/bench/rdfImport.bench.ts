/**
 * Bounded-memory RDF import (issue #9): generates N-Triples files of two sizes and imports each
 * into a new knowledge base in its own process (peak RSS is per process): parse and validate,
 * entities and verbalised triples with their FTS5 rows, the original statements, and embeddings
 * (n-gram test embedder, 16 dimensions). The small file is the baseline. Distinct nodes grow with
 * the file (a subject per ~5 statements, each with its own literal values), so memory that grew
 * with nodes or statements would show as an RSS ratio near the size ratio.
 *   npm run bench rdfImport -- --mb 1000        (the 1 GB file vs 100 MB; default 80 MB vs 20 MB)
 *   npm run bench rdfImport -- --mb 200 --small 2 --dim 32
 * Needs free disk of about 8× the big file (the KB, its WAL and vectors) in the temp directory.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./support/rdfImportChild.ts', import.meta.url));
const EX = 'http://example.org/';
const RDFS_LABEL = '<http://www.w3.org/2000/01/rdf-schema#label>';

/**
 * A graph shaped like real dumps: typed, labelled subjects (one label in 500 repeats the previous
 * subject's, so names collide), an integer attribute (values shared between subjects), a text
 * attribute (distinct per subject), non-ASCII text, and a link to an earlier subject.
 */
async function writeNTriples(file: string, megabytes: number): Promise<void> {
  const out = createWriteStream(file);
  const target = megabytes * 1024 * 1024;
  let written = 0;
  const write = async (text: string): Promise<void> => {
    written += Buffer.byteLength(text);
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  for (let c = 0; c < 50; c++) await write(`<${EX}c/Class${c}> ${RDFS_LABEL} "Class ${c}"@en .\n`);
  for (let i = 0; written < target; i++) {
    const s = `<${EX}e/${i}>`;
    await write(
      `${s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${EX}c/Class${i % 50}> .\n` +
        `${s} ${RDFS_LABEL} "Entity ${i % 500 === 499 ? i - 1 : i}"@en .\n` +
        `${s} <${EX}p/population> "${(i * 7919) % 100_000}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n` +
        `${s} <${EX}p/description> "Value ${i} with some text, ${i % 13} «${String.fromCodePoint(0x4e00 + (i % 2000))}»"@en .\n` +
        `${s} <${EX}p/rel${i % 97}> <${EX}e/${Math.floor(i * 0.618)}> .\n`,
    );
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

interface Row {
  mb: number;
  ms: number;
  stages: Record<string, number>;
  quads: number;
  entities: number;
  triples: number;
  vectors: number;
  kbMiB: number;
  maxRssMiB: number;
}

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

export async function run(args: string[]): Promise<void> {
  const big = option(args, '--mb', 80);
  // The baseline is big enough for SQLite's page caches and V8's heap to reach their working size.
  const small = option(args, '--small', Math.min(big, Math.max(20, Math.round(big / 10))));
  const dimension = option(args, '--dim', 16);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-import-'));
  try {
    const rows: Row[] = [];
    for (const mb of [small, big]) {
      const file = join(dir, `${mb}.nt`);
      await writeNTriples(file, mb);
      const size = statSync(file).size / 1024 / 1024;
      const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, file, dir, String(dimension)], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      rows.push({ mb: size, ...(JSON.parse(out.trim().split('\n').at(-1) as string) as Omit<Row, 'mb'>) });
      rmSync(file);
    }
    const [base, large] = rows as [Row, Row];
    const seconds = (ms: number | undefined): string => `${((ms ?? 0) / 1000).toFixed(1)}s`;
    for (const r of rows) {
      console.log(
        `${r.mb.toFixed(0).padStart(6)} MB  ${r.quads.toLocaleString('en').padStart(11)} statements  ${r.entities.toLocaleString('en').padStart(10)} entities  ` +
          `${r.triples.toLocaleString('en').padStart(11)} triples  ${(r.mb / (r.ms / 1000)).toFixed(2).padStart(6)} MB/s  peak RSS ${r.maxRssMiB.toFixed(0)} MiB  ` +
          `(validate ${seconds(r.stages.validate)}, write ${seconds(r.stages.import)}, embed ${seconds(r.stages.embed)}; ${r.vectors.toLocaleString('en')} vectors, KB ${r.kbMiB.toFixed(0)} MiB)`,
      );
    }
    console.log(
      `file size ×${(large.mb / base.mb).toFixed(1)} → peak RSS ×${(large.maxRssMiB / base.maxRssMiB).toFixed(2)} (bounded memory keeps this near ×1)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
