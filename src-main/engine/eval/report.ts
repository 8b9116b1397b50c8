import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreDistributionSvg } from './charts.js';
import type { BesideRow } from './besidePapers.js';
import { loadEvalRun, type LoadedRun } from './loadEvalRun.js';
import type { CostRow, LanguageRow, ReportRow } from './ReportRows.js';
import { renderReportMarkdown } from './reportMarkdown.js';
import { seriesOf, summariseRuns } from './summariseRuns.js';
import { BOOTSTRAP_DEFAULTS } from './stats/bootstrap.js';

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

const DEFAULT_CHART_METRICS = ['judge', 'soft-em', 'em', 'f1', 'rougeL-f', 'bleu', 'similarity'];

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
  const markdown = renderReportMarkdown(runs, summary, charts, boot);
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

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'dataset'
  );
}
