import type { EvidenceItem } from './EvidencePool.js';
import { evidenceBrief } from './EvidencePool.js';
import { fence, languageName } from './language.js';
import type { QaRun, StepScope } from './QaRun.js';

/** Evidence as the answer prompts show it: numbered so the model can cite `[n]`, fenced as data. */
export function formatEvidence(items: readonly EvidenceItem[]): string {
  if (items.length === 0) return '(no evidence was found)';
  return items.map((e, i) => `[${i + 1}] ${e.kind} · ${fence(e.label, 'evidence')}\n${fence(e.text, 'evidence')}`).join('\n\n');
}

/** The `[n]` markers an answer cites, as 0-based evidence indexes (for the trace). */
export function citedIndexes(text: string, count: number): number[] {
  const cited = new Set<number>();
  for (const m of text.matchAll(/\[(\d+)(?:\s*[,;]\s*\d+)*\]/g)) for (const n of m[0].match(/\d+/g) ?? []) if (+n >= 1 && +n <= count) cited.add(+n - 1);
  return [...cited].sort((a, b) => a - b);
}

/**
 * The final, grounded answer (prompt `qa/answer`): only the evidence may be used, the answer says
 * so when the evidence does not answer, it is written in the run's answer language and streams.
 */
export async function synthesiseAnswer(run: QaRun, question: string, evidence: readonly EvidenceItem[]): Promise<string> {
  return run.step('answer', async (s) => answerWith(s, run, 'qa/answer', { question: fence(question, 'question'), evidence: formatEvidence(evidence) }, evidence));
}

/** Shared tail of every grounded answer prompt: language, streaming, cited evidence in the trace. */
export async function answerWith(
  s: StepScope,
  run: QaRun,
  prompt: string,
  variables: Record<string, string>,
  evidence: readonly EvidenceItem[],
): Promise<string> {
  const text = await s.text(prompt, { ...variables, language: languageName(run.answerLanguage) }, { stream: true });
  s.detail.evidence = evidence.map(evidenceBrief);
  s.detail.cited = citedIndexes(text, evidence.length);
  return text;
}
