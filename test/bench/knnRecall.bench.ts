import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { quantileOf } from '../../src-main/engine/base/quantile.js';
import { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import type { VectorKind } from '../../src-main/engine/kb/types.js';
import { BinaryIndex } from '../../src-main/engine/kb/utils/BinaryIndex.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { seededRandom } from '../unit/kb/kbFixtures.js';
import { AnisotropicEmbedder } from './support/AnisotropicEmbedder.js';
import { buildKb, entityNames } from './support/qaBenchKb.js';
import { RotatedEmbedder } from './support/RotatedEmbedder.js';

/**
 * Recall@10 and time per search of the approximate KNN against an exact one, per vector kind and
 * oversample, on the qa bench's KB (support/qaBenchKb.ts) with its question texts as queries: how
 * much oversampling each family needs at a scale, and what it costs. Vectors are anisotropic like
 * e5's (AnisotropicEmbedder, `--lean`, 0.58 by default: triples' mean cosine ~0.78; 0 for
 * RotatedEmbedder alone); each family's mean pairwise cosine is printed. Beside the KB's search (codes centred on the mean vector) it prints the
 * recall plain sign-bit codes of the same vectors get through the same BinaryIndex, reranked on
 * the floats: what centring buys.
 *
 *   npm run bench knnRecall -- --entities 100000 --keep /tmp/kb100k.sqlite
 *   … --kinds chunk,triple --oversample 40,80,160
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      entities: { type: 'string', default: '10000' },
      kinds: { type: 'string', default: 'chunk,chunk_original,entity_summary,triple' },
      oversample: { type: 'string', default: '40,80,160,320' },
      questions: { type: 'string', default: '30' },
      keep: { type: 'string' },
      lean: { type: 'string', default: '0.58' },
    },
  });
  const n = Number(values.entities);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-knn-bench-'));
  const file = typeof values.keep === 'string' ? values.keep : join(dir, 'kb.sqlite');
  const lean = Number(values.lean);
  const rotated = new RotatedEmbedder(new NgramEmbedder(384));
  const vectors = lean > 0 ? new AnisotropicEmbedder(rotated, lean) : rotated;
  const names = entityNames(n);
  const kb = existsSync(file) ? KnowledgeBase.open(file) : await buildKb(file, names, vectors);
  try {
    const random = seededRandom(5);
    const texts = Array.from({ length: Number(values.questions) }, (_, i) => {
      const name = names[Math.floor(random() * names.length)]!;
      return i % 2 === 0 ? `Who was the spouse of the ruler of ${name}?` : `Chi era il coniuge del sovrano di ${name}?`;
    });
    const queries = await vectors.embed(texts, { purpose: 'query' });
    console.log(
      `${n.toLocaleString('en')} entities, ${queries.length} queries, k = 10, ${vectors.identity}; recall@10 against the exact search, p50 ms per approximate search (centred codes, the KB's), recall@10 of plain sign bits`,
    );
    for (const kind of String(values.kinds).split(',') as VectorKind[]) {
      const exact = queries.map((q) => kb.vectors.knn(kind, q, 10, { exact: true }).map((r) => r.id));
      kb.vectors.knn(kind, queries[0]!, 10); // loads the in-memory codes (and centres codes from before v15)
      const plain = plainSignCodes(file, kind);
      console.log(
        `  ${kind}: ${plain.vectors.size.toLocaleString('en')} vectors, mean pairwise cosine ${plain.meanCosine.toFixed(3)}`,
      );
      for (const oversample of String(values.oversample).split(',').map(Number)) {
        const ms: number[] = [];
        let recall = 0;
        queries.forEach((q, i) => {
          const t = performance.now();
          const found = new Set(kb.vectors.knn(kind, q, 10, { oversample }).map((r) => r.id));
          ms.push(performance.now() - t);
          recall += exact[i]!.filter((id) => found.has(id)).length / Math.max(1, exact[i]!.length);
        });
        const plainRecall = queries.reduce((sum, q, i) => {
          const found = new Set(plain.knn(q, 10, oversample));
          return sum + exact[i]!.filter((id) => found.has(id)).length / Math.max(1, exact[i]!.length);
        }, 0);
        console.log(
          `  ${kind.padEnd(15)} oversample ${String(oversample).padStart(4)}  recall@10 ${(recall / queries.length).toFixed(3)}  p50 ${quantileOf(ms, 0.5).toFixed(1)} ms  plain sign bits ${(plainRecall / queries.length).toFixed(3)}`,
        );
      }
    }
  } finally {
    kb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The stored vectors of `kind` under plain sign-bit codes (as before centring), with a search
 * that takes candidates from them as the KB does (BinaryIndex, float query refining) and reranks
 * them on the floats by dot product (the vectors are unit, so it ranks as the cosine).
 */
function plainSignCodes(
  file: string,
  kind: VectorKind,
): {
  vectors: Map<number, Float32Array>;
  meanCosine: number;
  knn: (query: Float32Array, k: number, oversample: number) => number[];
} {
  const db = new Database(file, { readonly: true });
  const vectors = new Map<number, Float32Array>();
  try {
    for (const row of db.prepare(`SELECT id, vector FROM vec_${kind}`).iterate() as Iterable<{
      id: number;
      vector: Buffer;
    }>)
      vectors.set(
        row.id,
        new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)),
      );
  } finally {
    db.close();
  }
  const dot = (a: Float32Array, b: Float32Array): number => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
    return s;
  };
  const all = [...vectors.values()];
  const dimension = all[0]?.length ?? 1;
  const index = new BinaryIndex(dimension, 0);
  for (const [id, v] of vectors) index.set(id, new Uint8Array(BinaryIndex.encode(v).buffer));
  let sum = 0;
  const pairs = Math.min(2000, Math.floor(all.length / 2));
  for (let i = 0; i < pairs; i++) sum += dot(all[2 * i]!, all[2 * i + 1]!);
  const unit = (q: Float32Array): Float32Array => {
    const norm = Math.sqrt(dot(q, q)) || 1;
    return q.map((x) => x / norm);
  };
  return {
    vectors,
    meanCosine: sum / Math.max(1, pairs),
    knn: (query, k, oversample) => {
      const q = unit(query);
      const [candidates] = index.candidatesOfEach([BinaryIndex.encode(q)], Math.max(k, k * oversample), {
        floats: [q],
      });
      return candidates!
        .map((id) => ({ id, score: dot(q, vectors.get(id)!) }))
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, k)
        .map((r) => r.id);
    },
  };
}
