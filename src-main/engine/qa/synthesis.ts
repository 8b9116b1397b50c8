import type { EvidenceItem } from './EvidencePool.js';
import { evidenceBrief } from './EvidencePool.js';
import { fence } from '../base/fence.js';
import { languageName } from './language.js';
import type { QaRun, StepScope } from './QaRun.js';
import type { StrategyResult } from './types.js';

/** Evidence as the answer prompts show it: numbered so the model can cite `[n]`, fenced as data. */
export function formatEvidence(items: readonly EvidenceItem[]): string {
  if (items.length === 0) return '(no evidence was found)';
  return items.map((e, i) => `[${i + 1}] ${e.kind} · ${fence(e.label)}\n${fence(e.text)}`).join('\n\n');
}

/** The `[n]` markers an answer cites, as 0-based evidence indexes (for the trace). */
export function citedIndexes(text: string, count: number): number[] {
  const cited = new Set<number>();
  for (const m of text.matchAll(/\[(\d+)(?:\s*[,;]\s*\d+)*\]/g)) for (const n of m[0].match(/\d+/g) ?? []) if (+n >= 1 && +n <= count) cited.add(+n - 1);
  return [...cited].sort((a, b) => a - b);
}

/**
 * The longest prefix of `items` (they come best first) whose text fits `budget` tokens; always at
 * least one item, so a huge single summary is still shown (the model's context check reports it).
 */
export function fitEvidence(items: readonly EvidenceItem[], budget: number, countTokens: (text: string) => number): { kept: EvidenceItem[]; dropped: EvidenceItem[] } {
  let used = 0;
  let cut = items.length;
  for (const [i, item] of items.entries()) {
    used += countTokens(`${item.label}\n${item.text}`);
    if (used > budget && i > 0) {
      cut = i;
      break;
    }
  }
  return { kept: items.slice(0, cut), dropped: items.slice(cut) };
}

/**
 * The final, grounded answer (prompt `qa/answer`): only the evidence may be used, the answer says
 * so when the evidence does not answer, it is written in the run's answer language and streams.
 */
export async function synthesiseAnswer(run: QaRun, question: string, evidence: readonly EvidenceItem[]): Promise<StrategyResult> {
  return run.step('answer', (s) => answerWith(s, run, 'qa/answer', evidence, (shown) => ({ question: fence(question), evidence: formatEvidence(shown) })));
}

/**
 * Shared tail of every grounded answer prompt: evidence cut to the token budget, the answer
 * language, streaming, and the trace of evidence shown, dropped and cited. Returns the evidence
 * actually shown, which is what the answer's citations cover.
 */
export async function answerWith(
  s: StepScope,
  run: QaRun,
  prompt: string,
  evidence: readonly EvidenceItem[],
  variables: (shown: readonly EvidenceItem[]) => Record<string, string>,
): Promise<StrategyResult> {
  const { kept, dropped } = fitEvidence(evidence, run.evidenceTokens, (t) => run.llm.countTokens(t));
  const text = await s.text(prompt, { ...variables(kept), language: languageName(run.answerLanguage) }, { stream: true });
  s.detail.evidence = kept.map(evidenceBrief);
  if (dropped.length > 0) s.detail.droppedForBudget = dropped.map(evidenceBrief);
  s.detail.cited = citedIndexes(text, kept.length);
  return { text, evidence: kept };
}
