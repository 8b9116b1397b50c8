import { besidePapers, type BesideRow } from './besidePapers.js';
import { ZERO_COST, type EvalCost, type EvalResultRow } from './EvalResultRow.js';
import type { LoadedRun } from './loadEvalRun.js';
import { metricLabel, metricRank } from './metrics/metricIds.js';
import type { Condition, CostRow, LanguageRow, ReportRow } from './ReportRows.js';
import { bootstrapMean, pairedBootstrap, type BootstrapEstimate } from './stats/bootstrap.js';

const LANGUAGE_METRICS = ['judge', 'soft-em', 'em', 'f1'];

export interface ReportSummary {
  strategies: string[];
  baselines: Set<string>;
  rows: ReportRow[];
  languageRows: LanguageRow[];
  costs: CostRow[];
  besidePapers: BesideRow[];
}

/** The tables of a report, computed from loaded runs (pure: no files written). */
export function summariseRuns(runs: readonly LoadedRun[], boot: { samples: number; seed: number }): ReportSummary {
  const baselines = new Set(runs.flatMap((r) => r.manifest.baselines));
  const all = runs.flatMap((r) => r.manifest.strategies);
  const strategies = [...new Set([...all.filter((s) => baselines.has(s)), ...all.filter((s) => !baselines.has(s))])];
  const rows: ReportRow[] = [];
  const languageRows: LanguageRow[] = [];
  const costs: CostRow[] = [];
  for (const dataset of unique(runs.flatMap((r) => r.rows.map((x) => x.dataset)))) {
    const dsRows = runs.flatMap((r) => r.rows.filter((x) => x.dataset === dataset));
    const metrics = unique(
      dsRows.flatMap((r) => [...Object.keys(r.scores), ...(r.judgeError !== undefined ? ['judge'] : [])]),
    ).sort((a, b) => metricRank(a) - metricRank(b) || a.localeCompare(b));
    for (const metric of metrics) {
      for (const condition of ['match', 'mismatch'] as const) {
        const cells: Record<string, BootstrapEstimate> = {};
        for (const strategy of strategies) {
          const series = seriesOf(runs, dataset, condition, strategy, metric);
          if (series.length > 0)
            cells[strategy] = bootstrapMean(
              series.map((x) => x.score),
              boot,
            );
        }
        if (Object.keys(cells).length === 0) continue;
        rows.push({
          dataset,
          metric,
          metricLabel: metricLabel(metric),
          condition,
          cells,
          delta: deltaOf(runs, dataset, condition, metric, cells, baselines, boot),
        });
      }
    }
    for (const language of unique(dsRows.map((r) => r.language)).sort()) {
      const condition = dsRows.find((r) => r.language === language)?.condition ?? 'match';
      for (const metric of metrics.filter((m) => LANGUAGE_METRICS.includes(m))) {
        const cells: Record<string, BootstrapEstimate> = {};
        for (const strategy of strategies) {
          const scores = dsRows
            .filter((r) => r.language === language && r.strategy === strategy && scoreOf(r, metric) !== undefined)
            .sort(byQuestion)
            .map((r) => scoreOf(r, metric) as number);
          if (scores.length > 0) cells[strategy] = bootstrapMean(scores, boot);
        }
        languageRows.push({ dataset, language, condition, metric, cells });
      }
    }
    for (const strategy of strategies) {
      const mine = dsRows.filter((r) => r.strategy === strategy);
      if (mine.length === 0) continue;
      const answered = mine.filter((r) => !r.error);
      const total = answered.reduce((t, r) => addCost(t, r.cost), { ...ZERO_COST });
      const n = Math.max(1, answered.length);
      costs.push({
        dataset,
        strategy,
        questions: mine.length,
        failed: mine.length - answered.length,
        judgeFailures: mine.filter((r) => r.judgeError !== undefined).length,
        perQuestion: {
          llmCalls: total.llmCalls / n,
          promptTokens: total.promptTokens / n,
          completionTokens: total.completionTokens / n,
          cacheHits: total.cacheHits / n,
          ms: total.ms / n,
        },
      });
    }
  }
  return { strategies, baselines, rows, languageRows, costs, besidePapers: besidePapers(runs, rows, languageRows) };
}

/** Scores of one strategy in one cell, ordered by (question, language) so series over the same questions resample together. */
export function seriesOf(
  runs: readonly LoadedRun[],
  dataset: string,
  condition: Condition,
  strategy: string,
  metric: string,
): { key: string; score: number }[] {
  return runs
    .flatMap((r) => r.rows)
    .filter(
      (r) =>
        r.dataset === dataset &&
        r.condition === condition &&
        r.strategy === strategy &&
        scoreOf(r, metric) !== undefined,
    )
    .sort(byQuestion)
    .map((r) => ({ key: JSON.stringify([r.itemId, r.language]), score: scoreOf(r, metric) as number }));
}

/** A row's score; a judge failure recorded without one (runs made before failures scored 0) counts 0, never missing. */
function scoreOf(row: EvalResultRow, metric: string): number | undefined {
  const score = row.scores[metric];
  if (score === undefined && metric === 'judge' && row.judgeError !== undefined) return 0;
  return score;
}

function byQuestion(a: EvalResultRow, b: EvalResultRow): number {
  return a.itemId < b.itemId
    ? -1
    : a.itemId > b.itemId
      ? 1
      : a.language < b.language
        ? -1
        : a.language > b.language
          ? 1
          : 0;
}

function deltaOf(
  runs: readonly LoadedRun[],
  dataset: string,
  condition: Condition,
  metric: string,
  cells: Record<string, BootstrapEstimate>,
  baselines: Set<string>,
  boot: { samples: number; seed: number },
): ReportRow['delta'] {
  const bestOf = (names: string[]): string | undefined =>
    names.sort((a, b) => (cells[b]?.mean ?? -Infinity) - (cells[a]?.mean ?? -Infinity))[0];
  const names = Object.keys(cells);
  const baseline = bestOf(names.filter((s) => baselines.has(s)));
  const best = bestOf(names.filter((s) => !baselines.has(s)));
  if (!baseline || !best) return null;
  const a = new Map(seriesOf(runs, dataset, condition, best, metric).map((x) => [x.key, x.score]));
  const b = seriesOf(runs, dataset, condition, baseline, metric).filter((x) => a.has(x.key));
  const paired = pairedBootstrap(
    b.map((x) => a.get(x.key) as number),
    b.map((x) => x.score),
    boot,
  );
  const bm = cells[baseline]?.mean ?? 0;
  const percent = bm > 0 ? (((cells[best]?.mean ?? 0) - bm) / bm) * 100 : null;
  return {
    best,
    baseline,
    percent,
    meanDiff: paired.meanDiff,
    se: paired.se,
    beyondOneSigma: Math.abs(paired.meanDiff) > paired.se,
    p: paired.p,
    n: paired.n,
  };
}

function addCost(total: EvalCost, c: EvalCost): EvalCost {
  total.llmCalls += c.llmCalls;
  total.promptTokens += c.promptTokens;
  total.completionTokens += c.completionTokens;
  total.cacheHits += c.cacheHits;
  total.ms += c.ms;
  return total;
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
