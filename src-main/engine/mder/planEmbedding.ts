import { throwIfAborted } from '../base/abort.js';
import { yieldToEventLoop } from '../base/concurrency.js';
import type { KnowledgeBase } from '../kb/index.js';
import type { VectorKind } from '../kb/types.js';
import type { Embedder } from '../models/Embedder.js';
import { tripleText } from './names.js';

const ALL = 2 ** 31 - 1;

export interface EmbeddingPlan {
  /** Rows still without a vector, all kinds together. */
  total: number;
  /** Embeds them batch by batch; `tick` receives each batch's size. */
  run(tick: (n: number) => void): Promise<void>;
}

/**
 * Embeds every row that has no vector yet: chunks (their English text; FTS5 gets both
 * languages), fixed-size passages, entity names, entity summaries and verbalised triples. The
 * indexing job's embed stage, and re-embedding a KB with another embedder, are this.
 */
export function planEmbedding(kb: KnowledgeBase, embedder: Embedder, options: { batchSize?: number; signal?: AbortSignal } = {}): EmbeddingPlan {
  const size = options.batchSize ?? 32;
  const missing = (kind: VectorKind): number[][] => {
    const ids = kb.missingVectors(kind, ALL);
    return Array.from({ length: Math.ceil(ids.length / size) }, (_, i) => ids.slice(i * size, (i + 1) * size));
  };
  const embed = (texts: string[]) => embedder.embed(texts, { purpose: 'passage', ...(options.signal ? { signal: options.signal } : {}) });
  const put = async (kind: VectorKind, rows: { id: number; text: string }[], fullText: boolean): Promise<void> => {
    if (rows.length === 0) return;
    const vectors = await embed(rows.map((r) => r.text));
    kb.transaction(() => {
      kb.putVectors(kind, rows.map((r, i) => ({ id: r.id, vector: vectors[i] as Float32Array })));
      if (fullText && (kind === 'chunk' || kind === 'triple')) kb.indexText(kind, rows);
    });
  };
  const batches: { size: number; run: () => Promise<void> }[] = [];
  for (const ids of missing('chunk')) {
    // Chunks are embedded in English (what triples and summaries are written in) and searched by BM25 in both languages.
    batches.push({
      size: ids.length,
      run: async () => {
        const chunks = kb.getChunks(ids);
        const vectors = await embed(chunks.map((c) => c.englishText ?? c.text));
        kb.transaction(() => {
          kb.putVectors('chunk', chunks.map((c, i) => ({ id: c.id, vector: vectors[i] as Float32Array })));
          kb.indexText('chunk', chunks.map((c) => ({ id: c.id, text: c.englishText && c.englishText !== c.text ? `${c.text}\n${c.englishText}` : c.text })));
        });
      },
    });
  }
  for (const ids of missing('passage')) batches.push({ size: ids.length, run: () => put('passage', kb.getPassages(ids).map((p) => ({ id: p.id, text: p.text })), false) });
  for (const ids of missing('entity_name')) batches.push({ size: ids.length, run: () => put('entity_name', kb.getEntities(ids).map((e) => ({ id: e.id, text: e.name })), false) });
  for (const ids of missing('entity_summary')) {
    batches.push({ size: ids.length, run: () => put('entity_summary', kb.getEntities(ids).flatMap((e) => (e.summary ? [{ id: e.id, text: e.summary }] : [])), false) });
  }
  for (const ids of missing('triple')) {
    batches.push({ size: ids.length, run: () => put('triple', kb.getTriples(ids).map((t) => ({ id: t.id, text: tripleText(t.sourceName, t.relation, t.targetName, t.description) })), true) });
  }
  return {
    total: batches.reduce((n, b) => n + b.size, 0),
    run: async (tick) => {
      for (const batch of batches) {
        throwIfAborted(options.signal);
        await yieldToEventLoop();
        await batch.run();
        tick(batch.size);
      }
    },
  };
}
