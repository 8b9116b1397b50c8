import type { LoadedRun } from './loadEvalRun.js';
import { metricLabel } from './metrics/metricIds.js';
import type { BootstrapEstimate } from './stats/bootstrap.js';
import type { ReportSummary } from './summariseRuns.js';

/** `report.md`: the runs, how to read the tables, then scores, by language, beside the papers, costs and charts. */
export function renderReportMarkdown(
  runs: readonly LoadedRun[],
  s: ReportSummary,
  charts: string[],
  boot: { samples: number; seed: number },
): string {
  const out: string[] = ['# Evaluation report', ''];
  for (const r of runs) {
    const m = r.manifest;
    out.push(
      `- **${m.dataset.name}** (${m.dataset.format}, \`${m.dataset.path}\`): ` +
        `${m.dataset.questions} questions, ${m.dataset.passages} passages in ${m.dataset.kbLanguage}; ` +
        `languages ${m.languages.join(', ')}; strategies ${m.strategies.join(', ')}; ` +
        `${r.rows.length} answers (${r.rows.filter((x) => x.error).length} failed)` +
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
      `Δ (%): best non-baseline vs best baseline (${[...s.baselines].join(', ')}); ` +
      "1σ: their paired difference exceeds its bootstrap standard error (MDER-DR's significance rule); " +
      `p: two-sided paired bootstrap of the difference (the same ${boot.samples.toLocaleString('en')} resamples of questions). ` +
      "EM and F1 score the short answer under the dataset's official script " +
      '(HotpotQA/2Wiki yes/no rule, MuSiQue empty answers, SQuAD v1.1 otherwise); ' +
      'Soft EM, the judge, ROUGE, BLEU and similarity read the full answer ' +
      '(citation markers removed for ROUGE, BLEU and similarity). ' +
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
      'Published figures for the same dataset, metric and language (or language condition), ' +
        'with the model each paper used; ours are from the models named above. ' +
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
