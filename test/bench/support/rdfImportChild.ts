// Child process of rdfImport.bench.ts: imports one file into a new knowledge base the way the Api's
// rdf:import job does (parse, write, FTS5, embed with the n-gram test embedder at a small dimension,
// so vectors of millions of statements fit on disk), then prints time per stage, counts and peak
// RSS as JSON. One process per file, so the peak RSS is that file's.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { importRdfIntoKb } from '../../../src-main/engine/api/importRdfIntoKb.js';
import { KbSessions } from '../../../src-main/engine/api/KbSessions.js';
import { NgramEmbedder } from '../../support/NgramEmbedder.js';

const [file, workDir, dimension] = process.argv.slice(2) as [string, string, string];
const dataDir = mkdtempSync(join(workDir, 'kbs-'));
const sessions = new KbSessions(dataDir);
try {
  const session = sessions.create({ name: 'bench' });
  const stages = new Map<string, number>();
  let stage = '';
  let stageStarted = performance.now();
  const started = performance.now();
  const result = await importRdfIntoKb(session, new NgramEmbedder(Number(dimension)), file, {
    signal: new AbortController().signal,
    onProgress: (p) => {
      if (p.stage === stage) return;
      if (stage) stages.set(stage, performance.now() - stageStarted);
      stage = p.stage;
      stageStarted = performance.now();
    },
  });
  stages.set(stage, performance.now() - stageStarted);
  const ms = performance.now() - started;
  const stats = session.kb.stats();
  console.log(
    JSON.stringify({
      ms,
      stages: Object.fromEntries(stages),
      ...result,
      vectors: stats.vectors.entity_name + stats.vectors.triple,
      kbMiB: stats.sizeBytes / 1024 / 1024,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
} finally {
  await sessions.dispose();
  rmSync(dataDir, { recursive: true, force: true });
}
