/**
 * Bounded-memory RDF import: generates N-Triples files of two sizes and imports each in its own
 * process (peak RSS is per process), printing throughput and peak RSS; the small file is the
 * baseline. Memory that grows with the file would show as an RSS ratio near the size ratio.
 *   npm run bench rdfImport -- --mb 1000     (the 1 GB file; default 200 MB vs 20 MB)
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./support/rdfImportChild.ts', import.meta.url));

async function writeNTriples(file: string, megabytes: number): Promise<void> {
  const out = createWriteStream(file);
  const target = megabytes * 1024 * 1024;
  let written = 0;
  for (let i = 0; written < target; i++) {
    const line = `<http://example.org/e/${i % 500_000}> <http://example.org/p/rel${i % 97}> "Value ${i} with some text, ${i % 13} «${String.fromCodePoint(0x4e00 + (i % 2000))}»"@en .\n<http://example.org/e/${i % 500_000}> <http://www.w3.org/2000/01/rdf-schema#label> "Entity ${i % 500_000}" .\n`;
    written += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

export async function run(args: string[]): Promise<void> {
  const mbIndex = args.indexOf('--mb');
  const big = mbIndex >= 0 ? Number(args[mbIndex + 1]) : 200;
  const small = Math.max(1, Math.round(big / 10));
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-rdf-import-'));
  try {
    const rows: { mb: number; ms: number; quads: number; maxRssMiB: number }[] = [];
    for (const mb of [small, big]) {
      const file = join(dir, `${mb}.nt`);
      await writeNTriples(file, mb);
      const size = statSync(file).size / 1024 / 1024;
      const out = execFileSync(process.execPath, ['--import', 'tsx', CHILD, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const result = JSON.parse(out.trim().split('\n').at(-1) as string) as { ms: number; quads: number; maxRssMiB: number };
      rows.push({ mb: size, ...result });
      rmSync(file);
    }
    const [base, large] = rows as [(typeof rows)[number], (typeof rows)[number]];
    for (const r of rows) console.log(`${r.mb.toFixed(0).padStart(6)} MB  ${r.quads.toLocaleString('en').padStart(12)} statements  ${(r.mb / (r.ms / 1000)).toFixed(1).padStart(6)} MB/s  peak RSS ${r.maxRssMiB.toFixed(0)} MiB`);
    console.log(`file size ×${(large.mb / base.mb).toFixed(1)} → peak RSS ×${(large.maxRssMiB / base.maxRssMiB).toFixed(2)} (bounded memory keeps this near ×1)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
