import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import { clusteredVectors, seededRandom } from '../unit/kb/kbFixtures.js';
import { quantileOf } from '../../src-main/engine/base/quantile.js';

/**
 * The KB's storage figures on clustered float vectors (not uniform noise: real embeddings cluster,
 * and clusters are what make a sign-bit prefilter hard):
 * - KNN p50/p95 and recall@10 of kb.vectors.knn (in-memory sign-bit prefilter + float rerank)
 *   against two baselines measured in the same run: the KB's exact float scan, and a plain sqlite-vec
 *   vec0 float[dim] table (its KNN is a full scan). Recall is against the exact scan.
 * - Cold first query (loading the bit codes), KB open time, FTS5 bm25 query p50 over n chunk rows,
 *   bulk insert rates (chunks, vectors, FTS rows).
 *
 *   npm run bench kb -- --n 1000000 --queries 30 --spread 0.75
 *   npm run bench kb -- --n 1000000 --queries 20 --fts no --vec0 no   (vector figures only, faster)
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      n: { type: 'string', default: '100000' },
      dim: { type: 'string', default: '384' },
      queries: { type: 'string', default: '50' },
      k: { type: 'string', default: '10' },
      spread: { type: 'string', default: '0.75' },
      'points-per-cluster': { type: 'string', default: '500' },
      oversample: { type: 'string', default: '40' },
      'baseline-queries': { type: 'string', default: '20' },
      fts: { type: 'string', default: 'yes' },
      vec0: { type: 'string', default: 'yes' },
    },
  });
  const n = Number(values.n);
  const dimension = Number(values.dim);
  const queries = Number(values.queries);
  const k = Number(values.k);
  const spread = Number(values.spread);
  const clusters = Math.max(2, Math.round(n / Number(values['points-per-cluster'])));
  const oversample = Number(values.oversample);
  const withFts = values.fts !== 'no';
  const baselineQueries = values.vec0 === 'no' ? 0 : Math.min(queries, Number(values['baseline-queries']));
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-kb-bench-'));
  console.log(
    `n=${n} vectors float[${dimension}] in ${clusters} clusters (spread ${spread}, intra-cluster cosine ≈ ${(1 / (1 + spread * spread)).toFixed(2)}), k=${k}, ${queries} queries, oversample ${oversample}`,
  );

  try {
    const file = join(dir, 'kb.sqlite');
    let kb = KnowledgeBase.open(file, { create: { name: 'bench', baseIri: 'urn:polyhop:kb:bench/' } });
    kb.vectors.setEmbedder('bench', dimension);
    const baseline = new Database(join(dir, 'vec0.sqlite'));
    sqliteVec.load(baseline);
    baseline.pragma('journal_mode = WAL');
    baseline.pragma('synchronous = NORMAL');
    baseline.exec(`CREATE VIRTUAL TABLE v USING vec0 (embedding float[${dimension}] distance_metric=cosine)`);
    const baselineInsert = baseline.prepare('INSERT INTO v (rowid, embedding) VALUES (?, ?)');

    // Chunks (with synthetic text for FTS5), then vectors, in batches as an indexing job would.
    const words = vocabulary(5000, seededRandom(11));
    const zipf = zipfSampler(words.length, seededRandom(12));
    const sample = clusteredVectors({ dimension, clusters, spread, seed: 13 });
    const batch = 10_000;
    const chunksPerDocument = 100;
    let chunkMs = 0;
    let vectorMs = 0;
    let textMs = 0;
    let baselineMs = 0;
    for (let start = 0; start < n; start += batch) {
      const size = Math.min(batch, n - start);
      let t = performance.now();
      const ids: number[] = [];
      const texts: string[] = [];
      kb.transaction(() => {
        for (let d = 0; d < size; d += chunksPerDocument) {
          const doc = kb.documents.addDocument({
            path: `/bench/${start + d}.txt`,
            title: `doc ${start + d}`,
            hash: `${start + d}`,
            mime: 'text/plain',
            size: 1,
          });
          const chunkTexts = Array.from({ length: Math.min(chunksPerDocument, size - d) }, () =>
            Array.from({ length: 20 }, () => words[zipf()]!).join(' '),
          );
          const stored = kb.documents.replaceChunks(
            doc.id,
            chunkTexts.map((text, ord) => ({
              ord,
              text,
              language: 'en',
              startOffset: 0,
              endOffset: text.length,
              page: null,
            })),
          );
          for (const c of stored) {
            ids.push(c.id);
            texts.push(c.text);
          }
        }
      });
      chunkMs += performance.now() - t;
      const vectors = ids.map(() => sample());
      t = performance.now();
      kb.vectors.putVectors(
        'chunk',
        ids.map((id, i) => ({ id, vector: vectors[i]! })),
      );
      vectorMs += performance.now() - t;
      if (withFts) {
        t = performance.now();
        kb.textIndex.indexText(
          'chunk',
          ids.map((id, i) => ({ id, text: texts[i]! })),
        );
        textMs += performance.now() - t;
      }
      if (baselineQueries > 0) {
        t = performance.now();
        baseline.transaction(() =>
          ids.forEach((id, i) => baselineInsert.run(BigInt(id), Buffer.from(vectors[i]!.buffer))),
        )();
        baselineMs += performance.now() - t;
      }
      if ((start / batch) % 10 === 9) console.log(`  … ${start + size} rows`);
    }

    kb.close();
    let t = performance.now();
    kb = KnowledgeBase.open(file);
    const openMs = performance.now() - t;
    const querySample = clusteredVectors({ dimension, clusters, spread, seed: 13 });
    for (let i = 0; i < 1000; i++) querySample(); // same clusters, different points than the stored ones' start
    const qs = Array.from({ length: queries }, () => querySample());
    t = performance.now();
    kb.vectors.knn('chunk', qs[0]!, k, { oversample });
    const coldMs = performance.now() - t;

    const fast: number[] = [];
    const exact: number[] = [];
    const vec0: number[] = [];
    let recall = 0;
    const vec0Knn = baseline.prepare('SELECT rowid AS id, distance FROM v WHERE embedding MATCH ? AND k = ?');
    for (const [i, q] of qs.entries()) {
      t = performance.now();
      const got = kb.vectors.knn('chunk', q, k, { oversample });
      fast.push(performance.now() - t);
      t = performance.now();
      const truth = kb.vectors.knn('chunk', q, k, { exact: true });
      exact.push(performance.now() - t);
      const want = new Set(truth.map((r) => r.id));
      recall += got.filter((r) => want.has(r.id)).length / k;
      if (i < baselineQueries) {
        t = performance.now();
        vec0Knn.all(Buffer.from(q.buffer), k);
        vec0.push(performance.now() - t);
      }
    }
    recall /= queries;

    const ftsQueries = Array.from({ length: queries }, () => Array.from({ length: 4 }, () => words[zipf()]!).join(' '));
    const fts: number[] = [];
    for (const query of withFts ? ftsQueries : []) {
      t = performance.now();
      kb.textIndex.bm25('chunk', query, 20);
      fts.push(performance.now() - t);
    }
    const sizeMb = kb.stats().sizeBytes / 1e6;
    kb.close();
    baseline.close();

    const rate = (ms: number): string =>
      ms > 0 ? `${Math.round(n / (ms / 1000)).toLocaleString('en')} rows/s` : 'skipped';
    const fastP50 = quantileOf(fast, 0.5);
    const table: [string, string, string][] = [
      [
        'KNN knn() p50 / p95',
        `${fmt(fastP50)} / ${fmt(quantileOf(fast, 0.95))} ms`,
        `recall@${k} ${recall.toFixed(3)} vs exact`,
      ],
      [
        'KNN exact float scan p50',
        `${fmt(quantileOf(exact, 0.5))} ms`,
        `${(quantileOf(exact, 0.5) / fastP50).toFixed(1)}× slower than knn()`,
      ],
      vec0.length
        ? [
            'KNN plain vec0 float p50',
            `${fmt(quantileOf(vec0, 0.5))} ms`,
            `${(quantileOf(vec0, 0.5) / fastP50).toFixed(1)}× slower than knn() (${vec0.length} queries)`,
          ]
        : ['KNN plain vec0 float p50', 'skipped', ''],
      ['first knn() (loads bit codes)', `${fmt(coldMs)} ms`, 'once per process and vector kind'],
      ['KB open', `${fmt(openMs)} ms`, `file ${sizeMb.toFixed(0)} MB`],
      fts.length
        ? [
            `FTS5 bm25 p50 (${n.toLocaleString('en')} rows)`,
            `${fmt(quantileOf(fts, 0.5))} ms`,
            `p95 ${fmt(quantileOf(fts, 0.95))} ms, 4-word queries`,
          ]
        : ['FTS5 bm25 p50', 'skipped', ''],
      ['insert chunks', rate(chunkMs), `${(chunkMs / 1000).toFixed(1)} s`],
      ['insert vectors (putVectors)', rate(vectorMs), `plain vec0 insert: ${rate(baselineMs)}`],
      ['insert FTS rows (indexText)', rate(textMs), ''],
    ];
    const widths = [0, 1, 2].map((c) => Math.max(...table.map((r) => r[c]!.length)));
    for (const row of table) console.log(`  ${row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

/** Pronounceable pseudo-words, so FTS5 sees a realistic vocabulary. */
function vocabulary(size: number, random: () => number): string[] {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'tu',
    'ra',
    'si',
    'po',
    've',
    'dan',
    'tor',
    'mel',
    'gri',
    'sha',
    'qu',
    'ex',
  ];
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  }
  return [...words];
}

/** Word ranks with Zipf(1) frequencies, like natural text. */
function zipfSampler(size: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let i = 0; i < size; i++) cumulative[i] = sum += 1 / (i + 1);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
