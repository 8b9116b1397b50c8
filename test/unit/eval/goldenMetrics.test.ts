import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnswerScript } from '../../../src-main/engine/eval/metrics/answerScript.js';
import { bleu } from '../../../src-main/engine/eval/metrics/bleu.js';
import { exactMatch } from '../../../src-main/engine/eval/metrics/exactMatch.js';
import { rouge } from '../../../src-main/engine/eval/metrics/rouge.js';
import { softExactMatch } from '../../../src-main/engine/eval/metrics/softExactMatch.js';
import { tokenF1 } from '../../../src-main/engine/eval/metrics/tokenF1.js';

interface GoldenRow {
  metric: string;
  prediction: string;
  golds: string[];
  expected: number;
  script?: AnswerScript;
  language?: string;
  dataset: string;
  why: string;
}

const table = JSON.parse(readFileSync(join(import.meta.dirname, 'golden/metrics.golden.json'), 'utf8')) as {
  rows: GoldenRow[];
};

/** Each metric id of the table → the implementation it checks. */
const METRICS: Record<string, (row: GoldenRow) => number> = {
  em: (r) => exactMatch(r.prediction, r.golds, { ...(r.script ? { script: r.script } : {}) }),
  f1: (r) => tokenF1(r.prediction, r.golds, { ...(r.script ? { script: r.script } : {}) }).f1,
  'em-lang': (r) => exactMatch(r.prediction, r.golds, { language: r.language ?? 'en' }),
  'f1-lang': (r) =>
    tokenF1(r.prediction, r.golds, { language: r.language ?? 'en', ...(r.script ? { script: r.script } : {}) }).f1,
  'soft-em': (r) => softExactMatch(r.prediction, r.golds, r.language ?? 'en'),
  'rouge1-f': (r) => rouge(r.prediction, r.golds, r.language ?? 'en').rouge1.f1,
  'rouge2-f': (r) => rouge(r.prediction, r.golds, r.language ?? 'en').rouge2.f1,
  'rougeL-f': (r) => rouge(r.prediction, r.golds, r.language ?? 'en').rougeL.f1,
  bleu: (r) => bleu(r.prediction, r.golds, r.language ?? 'en'),
};

describe('golden table: every metric against hand-computed values of its reference definition', () => {
  it('covers every lexical metric, and the cases the issue names', () => {
    const metrics = new Set(table.rows.map((r) => r.metric));
    for (const m of ['em', 'f1', 'em-lang', 'soft-em', 'rouge1-f', 'rouge2-f', 'rougeL-f', 'bleu'])
      expect(metrics, m).toContain(m);
    for (const r of table.rows) expect(METRICS[r.metric], `no implementation for ${r.metric}`).toBeDefined();
    const has = (test: (r: GoldenRow) => boolean): boolean => table.rows.some(test);
    expect(has((r) => /\[\d\]/.test(r.prediction))).toBe(true); // citations
    expect(has((r) => /['’]s\b/.test(r.prediction))).toBe(true); // possessives
    expect(has((r) => r.golds.some((g) => /^\d/.test(g)))).toBe(true); // numbers and dates
    expect(has((r) => r.golds.includes('no') || r.golds.includes('yes'))).toBe(true);
    expect(has((r) => /[^\u0000-\u024f\u2000-\u206f]/u.test(r.prediction))).toBe(true); // non-Latin scripts
    expect(has((r) => r.prediction === '')).toBe(true);
    expect(has((r) => r.golds.length > 1)).toBe(true); // aliases
  });

  it.each(
    table.rows.map(
      (r) =>
        [
          `${r.metric}${r.script ? `/${r.script}` : ''}${r.language ? `/${r.language}` : ''} ${JSON.stringify(r.prediction)} vs ${JSON.stringify(r.golds)}`,
          r,
        ] as const,
    ),
  )('%s', (_, row) => {
    expect(METRICS[row.metric]!(row), row.why).toBeCloseTo(row.expected, 12);
  });
});
