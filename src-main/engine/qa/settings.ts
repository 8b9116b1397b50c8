import { PolyhopError } from '../base/errors.js';

/**
 * Every tunable number of the QA strategies, with the papers' defaults where a paper names one.
 * `Settings.strategyParams` (api contract) overrides them with flat keys such as `dr.candidatesK`.
 */
export interface QaSettings {
  shared: {
    /** Reciprocal-rank-fusion constant k (Cormack et al. 2009). Default 60. */
    rrfK: number;
    /** Most citations attached to one piece of evidence. Default 5. */
    maxCitationsPerEvidence: number;
    /** Completion budget of the final answer. Default 512. */
    answerMaxTokens: number;
    /** Completion budget of structured intermediate calls. Default 512. */
    stepMaxTokens: number;
    /**
     * Reasoning a thinking model (Qwen3, gpt-oss) may do before each answer or step, on top of
     * those budgets, so it cannot leave the answer empty or cut. 0 turns reasoning off. Default 1024.
     */
    reasoningMaxTokens: number;
    /**
     * Tokens of evidence shown to a prompt (best first; the rest is dropped and traced). 0 (the
     * default) fills what the model's context leaves after the prompt and the answer (see
     * {@link evidenceBudget}), so a large-context model sees all ten passages of the vector baseline.
     */
    evidenceMaxTokens: number;
    /** Evidence items listed in retrieval-only mode. Default 10. */
    retrievalOnlyK: number;
  };
  /** MDER-DR (seed 000, 3.3). */
  dr: {
    /** Entity candidates per anchor by name similarity (paper: top-k). Default 5. */
    candidatesK: number;
    /** Cap on summaries accumulated while resolving (paper: "e.g., 30"). Default 30. */
    summaryCap: number;
    /** Summaries added by question–summary similarity (paper: "up to 10"). Default 10. */
    similarityTopUp: number;
  };
  /** HyP-KGRAG (seed 001). */
  hyp: {
    /** Factual triples retrieved per hypothetical triple, dense and BM25 each (paper: 10–100). Default 20. */
    perTripleK: number;
    /**
     * Keep a candidate when directness + entity clarity + context relevance ≥ this (paper: 3) and
     * no criterion is 0. The paper scores each criterion 1–2, where 3 would keep everything; our
     * judge may also give 0 (criterion not met at all), and such a triple is dropped whatever its total.
     */
    judgeThreshold: number;
    /** Candidates judged per LLM call (at most 64, and no more than the evidence budget of text). Default 10. */
    judgeBatchSize: number;
    /** Candidates sent to the judge, best fused rank first. Default 60. */
    maxCandidates: number;
    /** Hypothetical triples over all paths. Default 12. */
    maxPathTriples: number;
  };
  /** DaPT (seed 002). */
  dapt: {
    /** Fusion threshold on sub-question cosine similarity (paper: τ = 0.8). */
    tau: number;
    /** Passages retrieved per sub-question and language (paper: k = 3). */
    retrievalK: number;
    /** Passages retrieved for the original question in the final step. Default 5. */
    finalK: number;
    /** Sub-questions per graph. Default 8. */
    maxNodes: number;
    /** Regenerations of a bilingual node's answer until the judge accepts (paper: until it succeeds; bounded here). Default 3. */
    maxRegenerations: number;
  };
  /** Vector-RAG baseline (seed 000, 4.3: fixed-size 1000/200 chunks, top-10). */
  vector: {
    topK: number;
  };
}

export const QA_DEFAULTS: Readonly<QaSettings> = Object.freeze({
  shared: {
    rrfK: 60,
    maxCitationsPerEvidence: 5,
    answerMaxTokens: 512,
    stepMaxTokens: 512,
    reasoningMaxTokens: 1024,
    evidenceMaxTokens: 0,
    retrievalOnlyK: 10,
  },
  dr: { candidatesK: 5, summaryCap: 30, similarityTopUp: 10 },
  hyp: { perTripleK: 20, judgeThreshold: 3, judgeBatchSize: 10, maxCandidates: 60, maxPathTriples: 12 },
  dapt: { tau: 0.8, retrievalK: 3, finalK: 5, maxNodes: 8, maxRegenerations: 3 },
  vector: { topK: 10 },
});

/** Room kept in the context for a prompt's instructions, question and formatting around the evidence. */
export const PROMPT_ROOM_TOKENS = 1024;
/** Evidence budget when the model does not say how large its context is. */
const UNKNOWN_CONTEXT_EVIDENCE_TOKENS = 2500;

/** Tokens of evidence a prompt may carry: `shared.evidenceMaxTokens`, or with 0 what the context leaves (less the reasoning budget of a model that reasons). */
export function evidenceBudget(settings: QaSettings, contextTokens: number | undefined, reasons = false): number {
  const { evidenceMaxTokens, answerMaxTokens, stepMaxTokens, reasoningMaxTokens } = settings.shared;
  if (evidenceMaxTokens > 0) return evidenceMaxTokens;
  if (contextTokens === undefined) return UNKNOWN_CONTEXT_EVIDENCE_TOKENS;
  return Math.max(
    256,
    contextTokens - Math.max(answerMaxTokens, stepMaxTokens) - (reasons ? reasoningMaxTokens : 0) - PROMPT_ROOM_TOKENS,
  );
}

/**
 * Defaults overridden by flat `group.name` keys (the shape of `Settings.strategyParams`).
 * An unknown key or a negative / non-finite value is refused, naming the key, so a typo is never silently ignored.
 */
export function resolveQaSettings(overrides: Readonly<Record<string, number>> = {}): QaSettings {
  const settings = structuredClone(QA_DEFAULTS) as QaSettings;
  const groups = settings as unknown as Record<string, Record<string, number>>;
  for (const [key, value] of Object.entries(overrides)) {
    const [group, name, ...rest] = key.split('.');
    const target = group === undefined ? undefined : groups[group];
    if (!target || name === undefined || rest.length > 0 || !(name in target)) {
      throw new PolyhopError('INVALID_REQUEST', `qa/settings: unknown strategy parameter "${key}"`, {
        details: { key, known: Object.keys(flattenQaSettings(settings)) },
      });
    }
    if (!Number.isFinite(value) || value < 0)
      throw new PolyhopError('INVALID_REQUEST', `qa/settings: "${key}" must be a finite number ≥ 0`, {
        details: { key, value },
      });
    target[name] = value;
  }
  return settings;
}

/** `{ 'dr.candidatesK': 5, … }`: the flat view the Settings screen edits. */
export function flattenQaSettings(settings: QaSettings = QA_DEFAULTS): Record<string, number> {
  const flat: Record<string, number> = {};
  for (const [group, values] of Object.entries(settings))
    for (const [name, value] of Object.entries(values as Record<string, number>)) flat[`${group}.${name}`] = value;
  return flat;
}
