import type { StrategyName } from './Answer.js';
import { PROMPT_ROOM_TOKENS, type QaSettings } from './settings.js';

/**
 * Typical sizes of one piece of evidence, in tokens. A summary runs 3 to 12 sentences of about 40
 * tokens (mder/reduceEntities.ts: at most 496); most entities have few facts, so ~5 sentences.
 * A triple is its verbalisation plus a one-sentence description. A chunk is cut at 512 tokens
 * (ingest/chunk/semanticChunk.ts); a vector passage is 1,000 (ingest/chunk/fixedSizeChunk.ts).
 */
export const EVIDENCE_TOKENS = { summary: 200, triple: 60, chunk: 400, passage: 1000 } as const;

/**
 * Tokens of evidence a strategy's largest prompt is built to carry with its settings: DR's
 * accumulated summaries plus the similarity top-up (paper: 30 + 10), HyP's judged triples, DaPT's
 * passages of both paths for one sub-question (or of the final step), the vector baseline's top-k
 * passages; none for `llm-only`.
 */
export function evidenceNeed(strategy: StrategyName, settings: QaSettings): number {
  switch (strategy) {
    case 'dr':
      return (settings.dr.summaryCap + settings.dr.similarityTopUp) * EVIDENCE_TOKENS.summary;
    case 'hyp':
      return settings.hyp.maxCandidates * EVIDENCE_TOKENS.triple;
    case 'dapt':
      return Math.max(2 * settings.dapt.retrievalK, settings.dapt.finalK) * EVIDENCE_TOKENS.chunk;
    case 'vector':
      return settings.vector.topK * EVIDENCE_TOKENS.passage;
    case 'llm-only':
      return 0;
  }
}

/**
 * Context tokens one sequence needs so that {@link evidenceBudget} gives the strategy its whole
 * {@link evidenceNeed}: the evidence, the larger of the answer and step budgets, the reasoning
 * budget of a model that reasons, and the prompt's own text. `shared.evidenceMaxTokens`, when set,
 * is the evidence wanted instead.
 */
export function contextNeed(strategy: StrategyName, settings: QaSettings, reasons: boolean): number {
  const { evidenceMaxTokens, answerMaxTokens, stepMaxTokens, reasoningMaxTokens } = settings.shared;
  const evidence = evidenceMaxTokens > 0 ? evidenceMaxTokens : evidenceNeed(strategy, settings);
  return evidence + Math.max(answerMaxTokens, stepMaxTokens) + (reasons ? reasoningMaxTokens : 0) + PROMPT_ROOM_TOKENS;
}

/** The largest {@link contextNeed} of the retrieval strategies: what a model loaded for all of them should give each sequence. */
export function largestContextNeed(settings: QaSettings, reasons: boolean): number {
  return Math.max(...(['dr', 'hyp', 'dapt', 'vector'] as const).map((s) => contextNeed(s, settings, reasons)));
}
