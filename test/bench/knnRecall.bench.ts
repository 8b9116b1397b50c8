import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { quantileOf } from '../../src-main/engine/base/quantile.js';
import { KnowledgeBase } from '../../src-main/engine/kb/KnowledgeBase.js';
import type { VectorKind } from '../../src-main/engine/kb/types.js';
import { NgramEmbedder } from '../support/NgramEmbedder.js';
import { seededRandom } from '../unit/kb/kbFixtures.js';
import { buildKb, entityNames } from './support/qaBenchKb.js';
import { RotatedEmbedder } from './support/RotatedEmbedder.js';

/**
 * Recall@10 and time per search of the approximate KNN against an exact one, per vector kind and
 * oversample, on the qa bench's KB (support/qaBenchKb.ts) with its question texts as queries: how
 * much oversampling each family needs at a scale, and what it costs.
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
    },
  });
  const n = Number(values.entities);
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-knn-bench-'));
  const file = typeof values.keep === 'string' ? values.keep : join(dir, 'kb.sqlite');
  const vectors = new RotatedEmbedder(new NgramEmbedder(384));
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
      `${n.toLocaleString('en')} entities, ${queries.length} queries, k = 10; recall@10 against the exact search, p50 ms per approximate search`,
    );
    for (const kind of String(values.kinds).split(',') as VectorKind[]) {
      const exact = queries.map((q) => kb.knn(kind, q, 10, { exact: true }).map((r) => r.id));
      kb.knn(kind, queries[0]!, 10); // loads the in-memory codes
      for (const oversample of String(values.oversample).split(',').map(Number)) {
        const ms: number[] = [];
        let recall = 0;
        queries.forEach((q, i) => {
          const t = performance.now();
          const found = new Set(kb.knn(kind, q, 10, { oversample }).map((r) => r.id));
          ms.push(performance.now() - t);
          recall += exact[i]!.filter((id) => found.has(id)).length / Math.max(1, exact[i]!.length);
        });
        console.log(
          `  ${kind.padEnd(15)} oversample ${String(oversample).padStart(4)}  recall@10 ${(recall / queries.length).toFixed(3)}  p50 ${quantileOf(ms, 0.5).toFixed(1)} ms`,
        );
      }
    }
  } finally {
    kb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
