import { evidenceBrief } from '../EvidencePool.js';
import type { QaRun } from '../QaRun.js';
import { synthesiseAnswer } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';

/**
 * Vector-RAG baseline (seed 000, 4.3): the question's top-k chunks by embedding similarity, then
 * the grounded answer prompt.
 *
 * The paper's baseline chunks at a fixed 1000 tokens with 200 overlap; the KB stores MDER's
 * semantic chunks (a few sentences each). Re-chunking at query time would re-embed the corpus per
 * question, so fixed-size passages must be a vector family of their own written at index time
 * (requested of kb/ingest as `VectorKind 'passage'`). Until a KB has it, this baseline ranks the
 * semantic chunks and says so in the trace (`family`).
 */
export const vectorStrategy: Strategy = {
  name: 'vector',
  usesRetrieval: true,
  async answer(run: QaRun): Promise<StrategyResult> {
    const evidence = await run.step('retrieve chunks', async (s) => {
      const hits = run.retriever.chunks(await run.retriever.knn('chunk', run.question, run.settings.vector.topK));
      const items = hits.map(({ chunk, score }) => run.retriever.chunkEvidence(chunk, score));
      s.detail.family = 'chunk (semantic chunks: fixed-size passages are not indexed)';
      s.detail.retrieved = items.map(evidenceBrief);
      return items;
    });
    return synthesiseAnswer(run, run.question, evidence);
  },
};
