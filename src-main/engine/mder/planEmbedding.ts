import { throwIfAborted } from '../base/abort.js';
import { yieldToEventLoop } from '../base/concurrency.js';
import type { KnowledgeBase } from '../kb/index.js';
import type { VectorKind } from '../kb/types.js';
import type { Embedder } from '../models/Embedder.js';
import { verbaliseTriple } from '../kb/verbaliseTriple.js';
import { englishCorpusText } from '../kb/chunkCorpora.js';

/** In the order they are embedded. */
const EMBEDDED_KINDS: readonly VectorKind[] = [
  'chunk',
  'chunk_original',
  'passage',
  'entity_name',
  'entity_summary',
  'entity_partial',
  'triple',
];

export interface EmbeddingPlan {
  /** Rows still without a vector, all kinds together. */
  total: number;
  /** Embeds them batch by batch; `tick` receives each batch's size. */
  run(tick: (n: number) => void): Promise<void>;
}

/**
 * Embeds every row that has no vector yet: chunks in English (their English text) and, when not
 * English, as written (their original text; see kb/chunkCorpora.ts: an English chunk is embedded
 * once), with the BM25 text of both corpora; fixed-size passages, entity names, entity summaries,
 * hub entities' partial summaries and triples by their linear verbalisation alone (HyP-KGRAG 3.1;
 * their MDER descriptions go into the evidence, not the index). The indexing job's embed stage, and
 * re-embedding a KB with another embedder, are this.
 */
export interface PlanEmbeddingOptions {
  /** Rows per embedder call. Default 32. */
  batchSize?: number;
  /** Also (re)write the BM25 text of embedded chunks and triples. Default true; an RDF import wrote it already. */
  fullText?: boolean;
  signal?: AbortSignal;
}

export function planEmbedding(
  kb: KnowledgeBase,
  embedder: Embedder,
  options: PlanEmbeddingOptions = {},
): EmbeddingPlan {
  const size = options.batchSize ?? 32;
  const withText = options.fullText ?? true;
  const embed = (texts: string[]) =>
    embedder.embed(texts, { purpose: 'passage', ...(options.signal ? { signal: options.signal } : {}) });
  const put = async (kind: VectorKind, rows: { id: number; text: string }[], fullText: boolean): Promise<void> => {
    if (rows.length === 0) return;
    const vectors = await embed(rows.map((r) => r.text));
    kb.transaction(() => {
      kb.vectors.putVectors(
        kind,
        rows.map((r, i) => ({ id: r.id, vector: vectors[i] as Float32Array })),
      );
      if (fullText && withText && (kind === 'chunk' || kind === 'triple')) kb.textIndex.indexText(kind, rows);
    });
  };
  const batch = async (kind: VectorKind, ids: number[]): Promise<void> => {
    switch (kind) {
      case 'chunk': {
        // The English corpus (what triples and summaries are written in); both corpora's BM25 text goes with it.
        const chunks = kb.documents.getChunks(ids);
        const vectors = await embed(chunks.map((c) => c.englishText ?? c.text));
        kb.transaction(() => {
          kb.vectors.putVectors(
            'chunk',
            chunks.map((c, i) => ({ id: c.id, vector: vectors[i] as Float32Array })),
          );
          if (withText) {
            kb.textIndex.indexText(
              'chunk',
              chunks.map((c) => ({ id: c.id, text: englishCorpusText(c) })),
            );
            kb.textIndex.indexText(
              'chunk_original',
              chunks.map((c) => ({ id: c.id, text: c.text })),
            );
          }
        });
        return;
      }
      case 'chunk_original':
        // Only non-English chunks are missing these (see VectorIndexRepository.missingVectors).
        return put(
          'chunk_original',
          kb.documents.getChunks(ids).map((c) => ({ id: c.id, text: c.text })),
          false,
        );
      case 'passage':
        return put(
          'passage',
          kb.documents.getPassages(ids).map((p) => ({ id: p.id, text: p.text })),
          false,
        );
      case 'entity_name':
        return put(
          'entity_name',
          kb.graph.getEntities(ids).map((e) => ({ id: e.id, text: e.name })),
          false,
        );
      case 'entity_summary':
        return put(
          'entity_summary',
          kb.graph.getEntities(ids).flatMap((e) => (e.summary ? [{ id: e.id, text: e.summary }] : [])),
          false,
        );
      case 'entity_partial':
        return put(
          'entity_partial',
          kb.partialSummaries.get(ids).map((p) => ({ id: p.id, text: p.text })),
          false,
        );
      case 'triple':
        return put(
          'triple',
          kb.graph
            .getTriples(ids)
            .map((t) => ({ id: t.id, text: verbaliseTriple(t.sourceName, t.relation, t.targetName) })),
          true,
        );
    }
  };
  return {
    total: EMBEDDED_KINDS.reduce((n, kind) => n + kb.vectors.countMissingVectors(kind), 0),
    run: async (tick) => {
      // A page of ids at a time, after the last one done: memory stays at one batch however many rows wait.
      for (const kind of EMBEDDED_KINDS) {
        for (let after = 0; ;) {
          throwIfAborted(options.signal);
          await yieldToEventLoop();
          const ids = kb.vectors.missingVectors(kind, size, after);
          if (ids.length === 0) break;
          await batch(kind, ids);
          tick(ids.length);
          after = ids[ids.length - 1] as number;
        }
      }
    },
  };
}
