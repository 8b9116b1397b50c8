import type { PassageRecord } from '../../kb/types.js';
import { evidenceBrief, type EvidenceItem } from '../EvidencePool.js';
import type { QaRun } from '../QaRun.js';
import { synthesiseAnswer } from '../synthesis.js';
import type { Strategy, StrategyResult } from '../types.js';

/**
 * Vector-RAG baseline (seed 000, 4.3): the question's top-k fixed-size passages (1,000 tokens,
 * 200 overlap, cut and embedded at ingest) by embedding similarity, then the grounded answer
 * prompt. A passage is cited through the semantic chunks it overlaps, in text order, so the
 * citations carry document, page and offsets as for every other strategy.
 *
 * A KB ingested before passages existed has none (nor has one whose vectors were dropped and not
 * rebuilt yet): the baseline then ranks MDER's semantic chunks and says so in the trace (`family`);
 * when only some documents lack passages, the trace counts them.
 */
export const vectorStrategy: Strategy = {
  name: 'vector',
  usesRetrieval: true,
  async answer(run: QaRun): Promise<StrategyResult> {
    const k = run.settings.vector.topK;
    const evidence = await run.step('retrieve', async (s) => {
      const passages = run.ctx.kb;
      const ranking = await run.retriever.knn('passage', run.question, k);
      let items: EvidenceItem[];
      if (ranking.length > 0) {
        const byId = new Map(passages.documents.getPassages(ranking.map((r) => r.id)).map((p) => [p.id, p]));
        items = ranking.flatMap(({ id, score }) => {
          const passage = byId.get(id);
          return passage ? [passageEvidence(run, passage, score)] : [];
        });
        s.detail.family = 'passage (fixed-size passages)';
        const uncovered = passages.documents.countDocumentsWithoutPassages();
        if (uncovered > 0) s.detail.documentsWithoutPassages = uncovered;
      } else {
        const hits = run.retriever.chunks(await run.retriever.knn('chunk', run.question, k));
        items = hits.map(({ chunk, score }) => run.retriever.chunkEvidence(chunk, score));
        s.detail.family =
          'chunk (semantic chunks: no passage vectors; the knowledge base was indexed before fixed-size passages existed, or they are not embedded yet)';
      }
      s.detail.retrieved = items.map(evidenceBrief);
      return items;
    });
    return synthesiseAnswer(run, run.question, evidence);
  },
};

/** Passage text as chunk-kind evidence (the contract has no passage kind), labelled "title · passage n". */
function passageEvidence(run: QaRun, passage: PassageRecord, score: number): EvidenceItem {
  const label = `${run.retriever.documentTitle(passage.documentId)} · passage ${passage.ord + 1}`;
  return { kind: 'chunk', id: passage.id, label, text: passage.text, score, chunkIds: passage.chunkIds };
}
