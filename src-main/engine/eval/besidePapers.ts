import type { EvalManifest } from './EvalManifest.js';
import { metricRank } from './metrics/metricIds.js';
import { publishedFor, type PublishedFigure } from './publishedResults.js';
import type { LoadedRun } from './loadEvalRun.js';
import type { LanguageRow, ReportRow } from './ReportRows.js';
import type { BootstrapEstimate } from './stats/bootstrap.js';

/** A published figure beside ours for the same dataset, metric and language (or condition). */
export type BesideRow = {
  dataset: string;
  metric: string;
  language: string;
  published: PublishedFigure;
  /** Our strategy that does the published system's job, when we ran it. */
  same: { strategy: string; estimate: BootstrapEstimate } | null;
  /** Our best strategy in the same cell. */
  best: { strategy: string; estimate: BootstrapEstimate };
};

/** The key the published figures use for a run's dataset: its format where that names a benchmark, else its name (a WikiQA CSV named `wikiqa`). */
function publishedKey(manifest: EvalManifest): string {
  const format = manifest.dataset.format;
  return ['hotpotqa', '2wiki', 'musique', 'mse-kg'].includes(format) ? format : manifest.dataset.name.toLowerCase();
}

/**
 * Every published figure for a (dataset, metric, language) we have scores for: per language
 * from the language rows, per condition (MDER-DR's match/mismatch) from the main rows, and a
 * language that is the KB's own from the match row when no language row has the metric.
 */
export function besidePapers(
  runs: readonly LoadedRun[],
  rows: readonly ReportRow[],
  languageRows: readonly LanguageRow[],
): BesideRow[] {
  const out: BesideRow[] = [];
  const seen = new Set<string>();
  for (const run of runs) {
    const m = run.manifest;
    const dataset = m.dataset.name;
    const key = publishedKey(m);
    const cells = new Map<string, Record<string, BootstrapEstimate>>(); // `${metric}\u0000${language}`
    for (const r of rows.filter((x) => x.dataset === dataset)) {
      cells.set(`${r.metric}\u0000${r.condition}`, r.cells);
      if (r.condition === 'match' && !cells.has(`${r.metric}\u0000${m.dataset.kbLanguage}`))
        cells.set(`${r.metric}\u0000${m.dataset.kbLanguage}`, r.cells);
    }
    for (const r of languageRows.filter((x) => x.dataset === dataset))
      cells.set(`${r.metric}\u0000${r.language}`, r.cells);
    for (const [cellKey, ours] of cells) {
      const [metric, language] = cellKey.split('\u0000') as [string, string];
      const strategies = Object.keys(ours).filter((st) => Number.isFinite(ours[st]?.mean));
      if (strategies.length === 0 || seen.has(`${dataset}\u0000${cellKey}`)) continue;
      seen.add(`${dataset}\u0000${cellKey}`);
      const bestStrategy = strategies.sort((a, b) => (ours[b]?.mean ?? 0) - (ours[a]?.mean ?? 0))[0] as string;
      for (const published of publishedFor(key, metric, language)) {
        const same =
          published.strategy && ours[published.strategy]
            ? { strategy: published.strategy, estimate: ours[published.strategy] as BootstrapEstimate }
            : null;
        out.push({
          dataset,
          metric,
          language,
          published,
          same,
          best: { strategy: bestStrategy, estimate: ours[bestStrategy] as BootstrapEstimate },
        });
      }
    }
  }
  return out.sort(
    (a, b) =>
      a.dataset.localeCompare(b.dataset) ||
      metricRank(a.metric) - metricRank(b.metric) ||
      a.language.localeCompare(b.language) ||
      a.published.system.localeCompare(b.published.system),
  );
}
