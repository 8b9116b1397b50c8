import { evidenceBrief, type EvidenceItem } from './EvidencePool.js';
import type { QaRun } from './QaRun.js';
import { isEnglish } from './language.js';
import { reciprocalRankFusion } from './retrieval/reciprocalRankFusion.js';
import type { StrategyResult } from './types.js';

/**
 * Evidence without generation (no model loaded, or asked for): chunks (in English, and as written
 * for a question in another language) and verbalised triples by dense + BM25, entity summaries by
 * dense similarity, interleaved by reciprocal rank, top-k.
 * The text is a plain ranked list, headed as retrieval only.
 */
export async function retrievalOnlyAnswer(run: QaRun): Promise<StrategyResult> {
  const k = run.settings.shared.retrievalOnlyK;
  const evidence = await run.step('retrieve', async (s) => {
    const r = run.retriever;
    const [chunks, triples, summaries] = [
      await r.hybrid('chunk', run.question, k),
      await r.hybrid('triple', run.question, k),
      await r.entitiesBySummary(run.question, k),
    ];
    const asWritten = isEnglish(run.questionLanguage) ? null : await r.hybrid('chunk_original', run.question, k);
    // Evidence of different kinds is fused by rank; each distinct item gets a numeric id for the fusion.
    const items: EvidenceItem[] = [];
    const index = new Map<string, number>();
    const rank = (list: EvidenceItem[]): { id: number; score: number }[] =>
      list.map((e) => {
        const key = `${e.kind}:${e.id}`;
        let id = index.get(key);
        if (id === undefined) {
          id = items.push(e) - 1;
          index.set(key, id);
        }
        return { id, score: e.score };
      });
    const lists = [
      rank(r.chunks(chunks.fused).map(({ chunk, score }) => r.chunkEvidence(chunk, score))),
      ...(asWritten ? [rank(r.chunks(asWritten.fused).map(({ chunk, score }) => r.chunkEvidence(chunk, score)))] : []),
      rank(r.triples(triples.fused).map(({ triple, score }) => r.tripleEvidence(triple, score))),
      rank(summaries.map(({ entity, score }) => r.summaryEvidence(entity, score))),
    ];
    const ranked = reciprocalRankFusion(lists, run.settings.shared.rrfK)
      .slice(0, k)
      .map(({ id, score }) => ({ ...(items[id] as EvidenceItem), score }));
    s.detail.ranked = ranked.map(evidenceBrief);
    return ranked;
  });
  const lines = evidence.map((e, i) => `${i + 1}. [${e.kind}] ${e.label}: ${e.text}`);
  const text = ['Retrieval only (no answer was generated): ranked evidence for the question.', '', ...lines].join('\n');
  return { text, evidence };
}
