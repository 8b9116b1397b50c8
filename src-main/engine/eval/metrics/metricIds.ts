/**
 * Metric ids as they appear in results.jsonl and report rows, in report order. `recall@k`
 * ids are made per k by {@link recallMetric}.
 */
export const METRIC_ORDER = [
  'judge',
  'soft-em',
  'em',
  'f1',
  'em-lang',
  'f1-lang',
  'rouge1-f',
  'rouge1-p',
  'rouge1-r',
  'rouge2-f',
  'rouge2-p',
  'rouge2-r',
  'rougeL-f',
  'rougeL-p',
  'rougeL-r',
  'bleu',
  'similarity',
] as const;

const LABELS: Record<string, string> = {
  judge: 'LLM-as-a-Judge (full answer)',
  'soft-em': 'Soft EM (full answer)',
  em: 'EM (short answer)',
  f1: 'F1 (short answer)',
  'em-lang': 'EM (short answer, language-aware)',
  'f1-lang': 'F1 (short answer, language-aware)',
  'rouge1-f': 'ROUGE-1 F1',
  'rouge1-p': 'ROUGE-1 P',
  'rouge1-r': 'ROUGE-1 R',
  'rouge2-f': 'ROUGE-2 F1',
  'rouge2-p': 'ROUGE-2 P',
  'rouge2-r': 'ROUGE-2 R',
  'rougeL-f': 'ROUGE-L F1',
  'rougeL-p': 'ROUGE-L P',
  'rougeL-r': 'ROUGE-L R',
  bleu: 'BLEU',
  similarity: 'Embedding similarity',
};

export function recallMetric(k: number): string {
  return `recall@${k}`;
}

export function metricLabel(id: string): string {
  const recall = /^recall@(\d+)$/.exec(id);
  return recall ? `Recall@${recall[1]}` : (LABELS[id] ?? id);
}

/** Sort key: report order, recall@k after the answer metrics by k. */
export function metricRank(id: string): number {
  const i = (METRIC_ORDER as readonly string[]).indexOf(id);
  if (i >= 0) return i;
  const recall = /^recall@(\d+)$/.exec(id);
  return recall ? METRIC_ORDER.length + Number(recall[1]) : 10_000;
}
