import type { StrategyName } from '../qa/Answer.js';

/**
 * The published figures our reports print beside their own, taken only from the text of the
 * three seed papers (shared/seeds/000 MDER-DR, 001 HyP-KGRAG, 002 DaPT). Each says which paper
 * and table it comes from, the system and model it measured, and our strategy that does the same
 * job (none where we have no counterpart, e.g. GraphRAG, HippoRAG 2). Scores are in [0, 1]
 * (DaPT's percentages divided by 100).
 */
export interface PublishedFigure {
  paper: 'MDER-DR' | 'DaPT' | 'HyP-KGRAG';
  /** Paper and table, e.g. `MDER-DR Table 1`. */
  source: string;
  /**
   * Our dataset key: the run's format (`hotpotqa`, `2wiki`, `musique`, `mse-kg`) or, for data sets we read
   * as CSV/JSONL, the run's name (`wikiqa`, `benchee`).
   */
  dataset: string;
  /** Our metric id (see metricIds.ts). */
  metric: string;
  /** ISO code of the question language, or `match`/`mismatch` where the paper pools languages by condition (MDER-DR). */
  language: string;
  system: string;
  /** Our strategy doing the same job, if any. */
  strategy: StrategyName | null;
  model: string;
  value: number;
  /** The paper's ± (MDER-DR: bootstrap standard error). */
  se?: number;
}

const MDER_MODEL = 'gpt-oss:120b / gpt-oss:20b (judge too), mxbai-embed-large';
const MDER_SYSTEMS: [string, StrategyName | null][] = [
  ['LLM-only', 'llm-only'],
  ['Vector-RAG', 'vector'],
  ['GraphRAG', null],
  ['MDER-DR', 'dr'],
];
/** MDER-DR Table 1: dataset, metric, condition, then mean ± SE for LLM-only, Vector-RAG, GraphRAG, MDER-DR. */
const MDER_TABLE_1: [string, string, 'match' | 'mismatch', number[]][] = [
  ['wikiqa', 'judge', 'match', [0.412, 0.021, 0.477, 0.022, 0.422, 0.022, 0.79, 0.012]],
  ['wikiqa', 'judge', 'mismatch', [0.363, 0.012, 0.476, 0.013, 0.424, 0.013, 0.698, 0.011]],
  ['wikiqa', 'soft-em', 'match', [0.51, 0.022, 0.538, 0.022, 0.51, 0.022, 0.8, 0.018]],
  ['wikiqa', 'soft-em', 'mismatch', [0.408, 0.013, 0.538, 0.013, 0.516, 0.013, 0.699, 0.012]],
  ['hotpotqa', 'judge', 'match', [0.565, 0.021, 0.61, 0.021, 0.606, 0.021, 0.667, 0.021]],
  ['hotpotqa', 'judge', 'mismatch', [0.515, 0.012, 0.578, 0.013, 0.582, 0.012, 0.659, 0.012]],
  ['hotpotqa', 'soft-em', 'match', [0.458, 0.022, 0.548, 0.022, 0.562, 0.022, 0.586, 0.022]],
  ['hotpotqa', 'soft-em', 'mismatch', [0.347, 0.012, 0.471, 0.013, 0.473, 0.013, 0.525, 0.013]],
  ['benchee', 'judge', 'match', [0.748, 0.032, 0.768, 0.036, 0.73, 0.035, 0.829, 0.031]],
  ['benchee', 'judge', 'mismatch', [0.727, 0.031, 0.63, 0.037, 0.681, 0.034, 0.83, 0.03]],
];

const DAPT_MODEL = 'GPT-4o-mini, BGE-m3';
const DAPT_LANGUAGES = ['sw', 'th', 'de', 'es', 'zh', 'en'] as const;
const DAPT_SYSTEMS: Record<string, StrategyName | null> = {
  'Zero-shot': 'llm-only',
  CoT: null,
  'Vanilla RAG': 'vector',
  GraphRAG: null,
  HippoRAG2: null,
  DaPT: 'dapt',
};
/**
 * DaPT Table 1 (HippoRAG 2's rows are DaPT's run of it): EM, F1 per language in Sw, Th, De, Es, Zh, En order
 * (the Avg. columns are left out: they are the mean of these).
 */
const DAPT_TABLE_1: [string, string, number[]][] = [
  ['hotpotqa', 'Zero-shot', [17.9, 28.1, 17.2, 21.8, 23.2, 32.1, 23.9, 34.3, 15.9, 33.7, 27.9, 38.4]],
  ['hotpotqa', 'CoT', [16.8, 27.3, 16.7, 21.2, 24.6, 34.6, 24.3, 35.1, 15.3, 33.5, 29.8, 40.5]],
  ['hotpotqa', 'Vanilla RAG', [35.1, 48.1, 38.4, 47.7, 44.0, 55.5, 42.9, 56.2, 34.9, 35.5, 50.4, 62.3]],
  ['hotpotqa', 'GraphRAG', [18.9, 24.8, 16.8, 20.6, 11.2, 14.8, 23.6, 31.3, 13.5, 23.6, 29.0, 39.3]],
  ['hotpotqa', 'HippoRAG2', [42.2, 57.4, 38.9, 49.2, 45.7, 59.8, 46.2, 57.0, 34.6, 56.2, 54.0, 69.0]],
  ['hotpotqa', 'DaPT', [44.5, 53.2, 40.7, 46.9, 51.5, 59.5, 50.7, 60.3, 35.2, 55.1, 58.3, 67.5]],
  ['2wiki', 'Zero-shot', [22.5, 26.1, 27.0, 28.5, 28.4, 32.5, 27.0, 31.0, 21.5, 21.6, 26.0, 31.4]],
  ['2wiki', 'CoT', [16.8, 27.0, 16.8, 21.5, 27.8, 31.2, 25.7, 30.9, 23.9, 34.0, 28.8, 36.1]],
  ['2wiki', 'Vanilla RAG', [23.6, 37.9, 37.5, 41.0, 38.1, 43.1, 38.4, 43.5, 36.7, 36.8, 38.5, 43.7]],
  ['2wiki', 'GraphRAG', [22.3, 25.2, 24.8, 27.1, 29.3, 32.9, 27.4, 31.4, 24.2, 32.7, 35.4, 40.1]],
  ['2wiki', 'HippoRAG2', [47.4, 55.7, 46.2, 53.7, 52.7, 61.7, 57.0, 65.3, 30.0, 43.8, 58.9, 68.1]],
  ['2wiki', 'DaPT', [46.5, 53.1, 45.4, 51.6, 55.1, 59.1, 57.5, 62.8, 39.0, 51.1, 56.8, 67.2]],
  ['musique', 'Zero-shot', [1.3, 9.3, 1.1, 3.0, 3.9, 11.2, 2.6, 13.2, 1.9, 21.1, 4.9, 14.8]],
  ['musique', 'CoT', [1.4, 9.6, 1.1, 3.5, 3.7, 11.2, 2.7, 11.9, 1.7, 19.3, 4.9, 14.1]],
  ['musique', 'Vanilla RAG', [6.4, 17.2, 7.1, 12.5, 13.7, 21.9, 12.5, 23.1, 9.5, 28.5, 19.0, 29.1]],
  ['musique', 'GraphRAG', [2.3, 8.2, 1.7, 8.1, 2.2, 10.3, 3.2, 13.5, 2.8, 20.7, 4.7, 13.3]],
  ['musique', 'HippoRAG2', [18.1, 29.7, 12.5, 19.5, 23.8, 34.6, 22.8, 36.5, 13.3, 33.0, 31.1, 43.6]],
  ['musique', 'DaPT', [21.3, 29.5, 15.5, 23.8, 27.4, 35.0, 29.3, 38.3, 18.6, 32.8, 31.2, 41.4]],
];

const HYP_MODEL = 'DeepSeek-V3, BGE-M3; similarity all-MiniLM-L6-v2';
/**
 * HyP-KGRAG on MSE-KG (37 English competency questions). The seed's text gives Table 1's body
 * only where §4's discussion and the conclusion quote it, so these are the quoted cells.
 */
const HYP_QUOTED: [string, StrategyName | null, string, number][] = [
  ['HyP-KGRAG', 'hyp', 'rouge1-f', 0.532],
  ['HyP-KGRAG', 'hyp', 'rouge2-f', 0.408],
  ['HyP-KGRAG', 'hyp', 'rougeL-f', 0.491],
  ['HyP-KGRAG', 'hyp', 'rouge1-p', 0.569],
  ['HyP-KGRAG', 'hyp', 'rouge2-p', 0.453],
  ['HyP-KGRAG', 'hyp', 'rougeL-p', 0.528],
  ['HyP-KGRAG', 'hyp', 'bleu', 0.231],
  ['HyP-KGRAG', 'hyp', 'similarity', 0.629],
  ['BGE-M3 retrieval', 'vector', 'rouge1-p', 0.473],
  ['BGE-M3 retrieval', 'vector', 'bleu', 0.2],
  ['DeepSeek-V3 alone', 'llm-only', 'bleu', 0.002],
  ['DeepSeek-V3 alone', 'llm-only', 'similarity', 0.283],
];

export const PUBLISHED_RESULTS: readonly PublishedFigure[] = Object.freeze([
  ...MDER_TABLE_1.flatMap(([dataset, metric, language, v]) =>
    MDER_SYSTEMS.map(([system, strategy], i) => ({
      paper: 'MDER-DR' as const,
      source: 'MDER-DR Table 1',
      dataset,
      metric,
      language,
      system: system === 'LLM-only' ? 'LLM-only (ChatGPT)' : system,
      strategy,
      model: system === 'LLM-only' ? 'ChatGPT' : MDER_MODEL,
      value: v[2 * i] as number,
      se: v[2 * i + 1] as number,
    })),
  ),
  ...DAPT_TABLE_1.flatMap(([dataset, system, v]) =>
    DAPT_LANGUAGES.flatMap((language, i) =>
      (['em', 'f1'] as const).map((metric, j) => ({
        paper: 'DaPT' as const,
        source: 'DaPT Table 1',
        dataset,
        metric,
        language,
        system,
        strategy: DAPT_SYSTEMS[system] ?? null,
        model: DAPT_MODEL,
        value: Math.round((v[2 * i + j] as number) * 10) / 1000,
      })),
    ),
  ),
  ...HYP_QUOTED.map(([system, strategy, metric, value]) => ({
    paper: 'HyP-KGRAG' as const,
    source: 'HyP-KGRAG Table 1 (as quoted in §4 and the conclusion)',
    dataset: 'mse-kg',
    metric,
    language: 'en',
    system,
    strategy,
    model: HYP_MODEL,
    value,
  })),
]);

/** The published figures of one dataset and metric, in one language or condition. */
export function publishedFor(dataset: string, metric: string, language: string): PublishedFigure[] {
  return PUBLISHED_RESULTS.filter((f) => f.dataset === dataset && f.metric === metric && f.language === language);
}
