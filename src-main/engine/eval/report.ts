import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import { scoreDistributionSvg } from './charts.js';
import type { EvalManifest } from './EvalManifest.js';
import { rowKey, ZERO_COST, type EvalCost, type EvalResultRow } from './EvalResultRow.js';
import { JsonlFile } from './JsonlFile.js';
import { metricLabel, metricRank } from './metrics/metricIds.js';
import { besidePapers, type BesideRow } from './besidePapers.js';
import { BOOTSTRAP_DEFAULTS, bootstrapMean, pairedBootstrap, type BootstrapEstimate } from './stats/bootstrap.js';

export interface EvalReportOptions {
  /** Bootstrap resamples. Default: the run's (10,000). */
  samples?: number;
  /** Bootstrap seed. Default: the run's (1). */
  seed?: number;
  /** More run folders to put in the same tables (e.g. one per dataset). Default: none. */
  moreRunDirs?: string[];
  /** Metrics charted as score distributions. Default: judge, Soft EM, EM, F1, ROUGE-L F1, BLEU, similarity (those present). */
  chartMetrics?: string[];
}

export type Condition = 'match' | 'mismatch';

/** One table row: a dataset, a metric and a language condition, with every strategy's estimate. */
export type ReportRow = {
  dataset: string;
  metric: string;
  metricLabel: string;
  condition: Condition;
  cells: Record<string, BootstrapEstimate>;
  /** Best non-baseline vs best baseline (by mean), where the run has both. */
  delta: {
    best: string;
    baseline: string;
    percent: number | null;
    meanDiff: number;
    se: number;
    /** MDER-DR's rule: the paired difference is beyond one standard error of it (|mean diff| > SE). */
    beyondOneSigma: boolean;
    /** Two-sided paired-bootstrap p-value of no difference. */
    p: number;
    n: number;
  } | null;
};

export type LanguageRow = {
  dataset: string;
  language: string;
  condition: Condition;
  metric: string;
  cells: Record<string, BootstrapEstimate>;
};

/** `judgeFailures`: answers whose judge reply failed its schema after a retry (scored 0, not left out). */
export type CostRow = {
  dataset: string;
  strategy: string;
  questions: number;
  failed: number;
  judgeFailures: number;
  perQuestion: EvalCost;
};

export interface EvalReport {
  outDir: string;
  markdown: string;
  rows: ReportRow[];
  languageRows: LanguageRow[];
  costs: CostRow[];
  besidePapers: BesideRow[];
  /** Chart files, relative to outDir. */
  charts: string[];
}

export interface LoadedRun {
  dir: string;
  manifest: EvalManifest;
  /** The latest row of each (question, language, strategy). */
  rows: EvalResultRow[];
}

const DEFAULT_CHART_METRICS = ['judge', 'soft-em', 'em', 'f1', 'rougeL-f', 'bleu', 'similarity'];
const LANGUAGE_METRICS = ['judge', 'soft-em', 'em', 'f1'];

/** Reads a run folder (run.json + results.jsonl); later rows of the same key replace earlier ones. */
export function loadEvalRun(dir: string): LoadedRun {
  const manifestPath = join(dir, 'run.json');
  if (!existsSync(manifestPath))
    throw new PolyhopError('NOT_FOUND', `${dir}: not an evaluation run folder (no run.json)`, { details: { dir } });
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as EvalManifest;
  const latest = new Map<string, EvalResultRow>();
  for (const row of new JsonlFile<EvalResultRow>(join(dir, 'results.jsonl')).readAll()) latest.set(rowKey(row), row);
  return { dir, manifest, rows: [...latest.values()] };
}

/**
 * Writes `report.md`, `summary.json` and `charts/*.svg` into `outDir` from its results (and
 * those of `moreRunDirs`): per dataset × metric × language condition, each strategy's mean ±
 * bootstrap standard error, and Δ% of the best non-baseline over the best baseline with the
 * paired-bootstrap p-value of their difference (MDER-DR Table 1).
 */
export async function writeEvalReport(outDir: string, options: EvalReportOptions = {}): Promise<EvalReport> {
  const runs = [loadEvalRun(outDir), ...(options.moreRunDirs ?? []).map(loadEvalRun)];
  const first = runs[0] as LoadedRun;
  const boot = {
    samples: options.samples ?? first.manifest.bootstrapSamples ?? BOOTSTRAP_DEFAULTS.samples,
    seed: options.seed ?? first.manifest.seed ?? BOOTSTRAP_DEFAULTS.seed,
  };
  const summary = summariseRuns(runs, boot);
  const charts: string[] = [];
  const chartMetrics = options.chartMetrics ?? DEFAULT_CHART_METRICS;
  mkdirSync(join(outDir, 'charts'), { recursive: true });
  for (const row of summary.rows) {
    if (!chartMetrics.includes(row.metric)) continue;
    const series = summary.strategies
      .filter((s) => row.cells[s])
      .map((strategy) => ({
        strategy,
        scores: seriesOf(runs, row.dataset, row.condition, strategy, row.metric).map((x) => x.score),
      }));
    const file = `charts/${slug(row.dataset)}-${row.metric}-${row.condition}.svg`;
    const svg = await scoreDistributionSvg({
      title: `${row.metricLabel} · ${row.dataset} · language ${row.condition}`,
      series,
    });
    writeFileSync(join(outDir, file), svg);
    charts.push(file);
  }
  const markdown = renderMarkdown(runs, summary, charts, boot);
  writeFileSync(join(outDir, 'report.md'), markdown);
  const report: EvalReport = {
    outDir,
    markdown,
    rows: summary.rows,
    languageRows: summary.languageRows,
    costs: summary.costs,
    besidePapers: summary.besidePapers,
    charts,
  };
  writeFileSync(
    join(outDir, 'summary.json'),
    `${JSON.stringify({ ...report, markdown: undefined, bootstrap: boot }, null, 2)}\n`,
  );
  return report;
}

interface Summary {
  strategies: string[];
  baselines: Set<string>;
  rows: ReportRow[];
  languageRows: LanguageRow[];
  costs: CostRow[];
  besidePapers: BesideRow[];
}

/** The tables of a report, computed from loaded runs (pure: no files written). */
export function summariseRuns(runs: readonly LoadedRun[], boot: { samples: number; seed: number }): Summary {
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
function seriesOf(
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

function renderMarkdown(
  runs: readonly LoadedRun[],
  s: Summary,
  charts: string[],
  boot: { samples: number; seed: number },
): string {
  const out: string[] = ['# Evaluation report', ''];
  for (const r of runs) {
    const m = r.manifest;
    out.push(
      `- **${m.dataset.name}** (${m.dataset.format}, \`${m.dataset.path}\`): ${m.dataset.questions} questions, ${m.dataset.passages} passages in ${m.dataset.kbLanguage}; ` +
        `languages ${m.languages.join(', ')}; strategies ${m.strategies.join(', ')}; ${r.rows.length} answers (${r.rows.filter((x) => x.error).length} failed)` +
        `${m.dataset.notes?.length ? `; note: ${m.dataset.notes.join('; ')}` : ''}.`,
    );
    if (m.models) {
      const parts = [
        m.models.generation ? `answers by ${m.models.generation}` : null,
        m.models.judge
          ? `judge ${m.models.judge}${m.models.judge === m.models.generation ? ' (the model under test)' : ''}`
          : null,
        m.models.similarity ? `similarity by ${m.models.similarity}` : null,
      ].filter(Boolean);
      if (parts.length > 0) out.push(`  Models: ${parts.join('; ')}.`);
    }
  }
  out.push(
    '',
    `Scores are means over questions ± standard error (standard deviation of ${boot.samples.toLocaleString('en')} bootstrap resamples, seed ${boot.seed}). ` +
      "Match ✓: the question is in the knowledge base's language; otherwise all mismatching languages are pooled. " +
      `Δ (%): best non-baseline vs best baseline (${[...s.baselines].join(', ')}); 1σ: their paired difference exceeds its bootstrap standard error (MDER-DR's significance rule); p: two-sided paired bootstrap of the difference (the same ${boot.samples.toLocaleString('en')} resamples of questions). ` +
      "EM and F1 score the short answer under the dataset's official script (HotpotQA/2Wiki yes/no rule, MuSiQue empty answers, SQuAD v1.1 otherwise); Soft EM, the judge, ROUGE, BLEU and similarity read the full answer (citation markers removed for ROUGE, BLEU and similarity). " +
      'A judge reply that fails its schema after a retry scores 0 and is counted under "Judge failures".',
    '',
    '## Scores',
    '',
  );
  const header = ['Dataset', 'Metric', 'Match', ...s.strategies, 'Δ (%)', '1σ', 'p'];
  out.push(tableRow(header), tableRow(header.map((_, i) => (i === 2 ? ':-:' : i > 2 ? '--:' : '---'))));
  for (const row of s.rows) {
    out.push(
      tableRow([
        row.dataset,
        row.metricLabel,
        row.condition === 'match' ? '✓' : '',
        ...s.strategies.map((st) => formatEstimate(row.cells[st])),
        row.delta?.percent == null ? '—' : `${Math.round(row.delta.percent)}%`,
        row.delta ? (Number.isNaN(row.delta.se) ? '—' : row.delta.beyondOneSigma ? 'yes' : 'no') : '—',
        row.delta ? formatP(row.delta.p) : '—',
      ]),
    );
  }
  if (s.languageRows.length > 0) {
    out.push('', '## By language', '');
    const h = ['Dataset', 'Language', 'Match', 'Metric', ...s.strategies];
    out.push(tableRow(h), tableRow(h.map((_, i) => (i === 2 ? ':-:' : i > 3 ? '--:' : '---'))));
    for (const r of s.languageRows)
      out.push(
        tableRow([
          r.dataset,
          r.language,
          r.condition === 'match' ? '✓' : '',
          metricLabel(r.metric),
          ...s.strategies.map((st) => formatEstimate(r.cells[st])),
        ]),
      );
  }
  if (s.besidePapers.length > 0) {
    out.push(
      '',
      '## Beside the papers',
      '',
      'Published figures for the same dataset, metric and language (or language condition), with the model each paper used; ours are from the models named above. ' +
        'A paper\'s figure is comparable only as far as its setting is (sample, corpus, model, judge): see README, "Reproducing the papers\' tables".',
      '',
    );
    const h = [
      'Dataset',
      'Metric',
      'Language',
      'Source',
      'System (model)',
      'Published',
      'Ours, same system',
      'Ours, best',
    ];
    out.push(tableRow(h), tableRow(h.map((_, i) => (i > 4 ? '--:' : '---'))));
    for (const b of s.besidePapers) {
      const p = b.published;
      out.push(
        tableRow([
          b.dataset,
          metricLabel(b.metric),
          b.language,
          p.source,
          `${p.system} (${p.model})`,
          p.se !== undefined ? `${p.value.toFixed(3)} ± ${p.se.toFixed(3)}` : p.value.toFixed(3),
          b.same ? `${b.same.strategy} ${formatEstimate(b.same.estimate)}` : '—',
          `${b.best.strategy} ${formatEstimate(b.best.estimate)}`,
        ]),
      );
    }
  }
  out.push('', '## Cost per question', '');
  const ch = [
    'Dataset',
    'Strategy',
    'Answers',
    'Failed',
    'Judge failures',
    'LLM calls',
    'Prompt tokens',
    'Completion tokens',
    'Cache hits',
    'Time (ms)',
  ];
  out.push(tableRow(ch), tableRow(ch.map((_, i) => (i > 1 ? '--:' : '---'))));
  for (const c of s.costs) {
    const q = c.perQuestion;
    out.push(
      tableRow([
        c.dataset,
        c.strategy,
        String(c.questions),
        String(c.failed),
        String(c.judgeFailures),
        q.llmCalls.toFixed(1),
        q.promptTokens.toFixed(0),
        q.completionTokens.toFixed(0),
        q.cacheHits.toFixed(1),
        q.ms.toFixed(0),
      ]),
    );
  }
  out.push('', '## Cost of indexing and evaluation', '');
  const ih = [
    'Dataset',
    'Passages',
    'KB',
    'LLM calls',
    'Tokens (prompt + completion)',
    'Time (ms)',
    'per passage: calls / tokens / ms',
    'Translation calls',
  ];
  out.push(tableRow(ih), tableRow(ih.map((_, i) => (i > 0 ? '--:' : '---'))));
  for (const r of runs) {
    const m = r.manifest;
    const ix = m.indexing;
    const p = Math.max(1, ix?.passages ?? 0);
    out.push(
      tableRow([
        m.dataset.name,
        String(m.dataset.passages),
        ix ? (ix.reused ? 'reused' : 'built') : '—',
        ix ? String(ix.cost.llmCalls) : '—',
        ix ? `${ix.cost.promptTokens} + ${ix.cost.completionTokens}` : '—',
        ix ? String(ix.cost.ms) : '—',
        ix && !ix.reused
          ? `${(ix.cost.llmCalls / p).toFixed(2)} / ${((ix.cost.promptTokens + ix.cost.completionTokens) / p).toFixed(0)} / ${(ix.cost.ms / p).toFixed(0)}`
          : '—',
        String(m.translation.llmCalls),
      ]),
    );
  }
  if (charts.length > 0) {
    out.push('', '## Score distributions', '');
    for (const c of charts) out.push(`![${c}](${c})`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function formatEstimate(e: BootstrapEstimate | undefined): string {
  return e ? `${e.mean.toFixed(3)} ± ${e.se.toFixed(3)}` : '—';
}

function formatP(p: number): string {
  return Number.isNaN(p) ? '—' : p < 0.001 ? '<0.001' : p.toFixed(3);
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
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

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'dataset'
  );
}
