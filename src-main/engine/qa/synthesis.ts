import { z } from 'zod';
import type { EvidenceItem } from './EvidencePool.js';
import { evidenceBrief } from './EvidencePool.js';
import { fence } from '../base/fence.js';
import { languageName, languageToWrite, readLanguage, settlementNote } from './language.js';
import type { PolyhopError } from '../base/errors.js';
import type { LlmUsage } from '../models/Llm.js';
import { JsonStringFieldStream } from '../models/JsonStringFieldStream.js';
import { emptyReason, isInvalidOutput, type QaRun, type StepScope } from './QaRun.js';
import type { StrategyResult } from './types.js';

/** Evidence as the answer prompts show it: numbered so the model can cite `[n]`, fenced as data. */
export function formatEvidence(items: readonly EvidenceItem[]): string {
  if (items.length === 0) return '(no evidence was found)';
  return items.map((e, i) => `[${i + 1}] ${e.kind} · ${fence(e.label)}\n${fence(e.text)}`).join('\n\n');
}

/** The `[n]` markers an answer cites, as 0-based evidence indexes (for the trace). */
export function citedIndexes(text: string, count: number): number[] {
  const cited = new Set<number>();
  for (const m of text.matchAll(/\[(\d+)(?:\s*[,;]\s*\d+)*\]/g))
    for (const n of m[0].match(/\d+/g) ?? []) if (+n >= 1 && +n <= count) cited.add(+n - 1);
  return [...cited].sort((a, b) => a - b);
}

/**
 * The longest prefix of `items` (they come best first) whose text fits `budget` tokens; always at
 * least one item, so a huge single summary is still shown (the model's context check reports it).
 */
export function fitEvidence(
  items: readonly EvidenceItem[],
  budget: number,
  countTokens: (text: string) => number,
): { kept: EvidenceItem[]; dropped: EvidenceItem[] } {
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

/** What an evidence budget held and left out, for the trace. */
export interface BudgetNote {
  /** Tokens of evidence the prompt could carry (see `evidenceBudget`). */
  evidenceTokens: number;
  /** Tokens of one sequence of the model's context, when known. */
  contextTokens: number | null;
  shown: number;
  /** Items left out, by kind. */
  dropped: Record<EvidenceItem['kind'], number>;
  /** The same in words: "3 summaries and 1 passage did not fit the 1,536-token evidence budget (4,096-token context)". */
  text: string;
}

const KIND_WORDS: Record<EvidenceItem['kind'], [string, string]> = {
  summary: ['summary', 'summaries'],
  triple: ['triple', 'triples'],
  chunk: ['passage', 'passages'],
};

/** The trace's account of a {@link fitEvidence} cut: how much evidence of each kind did not fit, and the budget it did not fit. */
export function budgetNote(
  kept: readonly EvidenceItem[],
  dropped: readonly EvidenceItem[],
  evidenceTokens: number,
  contextTokens: number | undefined,
): BudgetNote {
  const counts: Record<EvidenceItem['kind'], number> = { summary: 0, triple: 0, chunk: 0 };
  for (const item of dropped) counts[item.kind]++;
  const parts = (Object.keys(counts) as EvidenceItem['kind'][])
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} ${KIND_WORDS[kind][counts[kind] === 1 ? 0 : 1]}`);
  const listed = parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  const budget = `the ${evidenceTokens.toLocaleString('en-US')}-token evidence budget${
    contextTokens === undefined ? '' : ` (${contextTokens.toLocaleString('en-US')}-token context)`
  }`;
  const text =
    dropped.length === 0
      ? `all ${kept.length} pieces of evidence fit ${budget}`
      : `${listed} did not fit ${budget}; ${kept.length} shown`;
  return { evidenceTokens, contextTokens: contextTokens ?? null, shown: kept.length, dropped: counts, text };
}

/**
 * The final step's reply, one grammar-constrained call: the explained answer with its `[n]`
 * citations, then the bare short answer (the entity, date, number, yes/no or short phrase, no
 * citation; empty when the model finds no answer) that EM/F1 score, as DaPT, HotpotQA and
 * MuSiQue score a short answer.
 */
export const FinalAnswerSchema = z.object({
  // No maxLength on the explained answer: the answer token budget bounds it, and a long repeat bound bloats the grammar.
  answer: z.string(),
  short: z.string().max(300),
});
export type FinalAnswer = z.infer<typeof FinalAnswerSchema>;

/**
 * The final, grounded answer (prompt `qa/answer`): only the evidence may be used, the answer says
 * so when the evidence does not answer, and it is written in the run's answer language.
 */
export async function synthesiseAnswer(
  run: QaRun,
  question: string,
  evidence: readonly EvidenceItem[],
): Promise<StrategyResult> {
  return run.step('answer', (s) =>
    answerWith(s, run, 'qa/answer', evidence, (shown) => ({
      question: fence(question),
      evidence: formatEvidence(shown),
    })),
  );
}

/**
 * Shared tail of every grounded answer prompt: evidence cut to the token budget, the answer
 * language, the explained and the short answer in one JSON call, and the trace of evidence
 * shown, dropped and cited. Returns the evidence actually shown, which is what the answer's
 * citations cover.
 */
export async function answerWith(
  s: StepScope,
  run: QaRun,
  prompt: string,
  evidence: readonly EvidenceItem[],
  variables: (shown: readonly EvidenceItem[]) => Record<string, string>,
): Promise<StrategyResult> {
  const { kept, dropped } = fitEvidence(evidence, run.evidenceTokens, (t) => run.llm.countTokens(t));
  const reply = await finalAnswer(s, run, prompt, variables(kept));
  s.detail.evidence = kept.map(evidenceBrief);
  if (dropped.length > 0) s.detail.droppedForBudget = dropped.map(evidenceBrief);
  s.detail.budget = budgetNote(kept, dropped, run.evidenceTokens, run.llm.contextTokens);
  s.detail.cited = citedIndexes(reply.text, kept.length);
  return { ...reply, evidence: kept };
}

/**
 * One final-answer call (any strategy's last step): the prompt's variables plus the answer
 * language, a {@link FinalAnswerSchema} reply within the answer token budget. The explained
 * answer streams to the asker as the model writes it (the `answer` field decoded from the JSON
 * text); `ask` settles the stream on the finished answer. Its language is checked, and it
 * settles a question language the detector and the tie-breaker disputed (see `disputedLanguages`).
 */
export async function finalAnswer(
  s: StepScope,
  run: QaRun,
  prompt: string,
  variables: Record<string, string>,
): Promise<{ text: string; shortAnswer: string }> {
  const open = run.openAnswerLanguages;
  // Detector and tie-breaker disagreed on the question's language: the model, writing prose, is asked for the one it is in.
  const language = languageToWrite(run.answerLanguage, open, 'question');
  const stream = run.answerStream.jsonField('answer');
  let reply = await answerCall(s, run, prompt, { ...variables, language, retry: '' }, stream);
  const accepted = open ?? [run.answerLanguage];
  // Small models drift into the language of the question or of the evidence: an answer that reads
  // as another language is asked for once more, told so, and flagged when it still does.
  let read = readLanguage(reply.text, accepted);
  const check: Record<string, unknown> = {};
  if (read !== null && !accepted.includes(read)) {
    stream.onTextRestart?.();
    const retry = fence(
      `Your previous answer was written in ${languageName(read)}. Write the whole answer in ${language}.`,
    );
    reply = await answerCall(s, run, prompt, { ...variables, language, retry }, stream);
    const again = readLanguage(reply.text, accepted);
    Object.assign(check, { expected: open ?? run.answerLanguage, written: read, askedAgain: true });
    if (again !== null && !accepted.includes(again)) check.stillWritten = again;
    read = again;
  }
  if (open) {
    const settled = read !== null && open.includes(read) ? read : null;
    if (settled) run.settleLanguage(settled);
    Object.assign(check, settlementNote(open, read, 'the answer', 'the tie-break'));
  }
  if (Object.keys(check).length > 0) s.detail.language = check;
  return reply;
}

/** One {@link FinalAnswerSchema} call; a reply cut by the token budget (or otherwise broken) keeps what it wrote. */
async function answerCall(
  s: StepScope,
  run: QaRun,
  prompt: string,
  variables: Record<string, string>,
  stream: ReturnType<QaRun['answerStream']['jsonField']>,
): Promise<{ text: string; shortAnswer: string }> {
  const maxTokens = run.settings.shared.answerMaxTokens;
  let value: FinalAnswer;
  let usage: LlmUsage | undefined;
  let cut = false;
  try {
    ({ value, usage } = await s.json(prompt, variables, FinalAnswerSchema, maxTokens, stream));
  } catch (error) {
    if (!isInvalidOutput(error)) throw error;
    // As a free-text answer cut short would; a short answer it did not finish is none.
    const { raw, usage: spent } = (error as PolyhopError).details as { raw?: unknown; usage?: LlmUsage };
    value = {
      answer: jsonStringField(String(raw ?? ''), 'answer', false) ?? '',
      short: jsonStringField(String(raw ?? ''), 'short', true) ?? '',
    };
    usage = spent;
    cut = true;
    const invalid = (s.detail.invalid ??= []) as { prompt: string; message: string }[];
    invalid.push({ prompt, message: (error as Error).message });
  }
  const text = value.answer.trim();
  const shortAnswer = value.short.trim();
  s.detail.shortAnswer = shortAnswer;
  // An empty answer always says why (a thinking model may spend its budget reasoning).
  if (!text) s.detail.empty = emptyReason(cut ? 'maxTokens' : 'eos', maxTokens, usage?.reasoningTokens ?? 0);
  else delete s.detail.empty;
  return { text, shortAnswer };
}

/**
 * The value of a top-level string field in a possibly cut JSON reply: decoded up to its closing
 * quote, or (unless `complete` is asked) to where the reply stops. Undefined when the field is absent.
 */
export function jsonStringField(raw: string, field: string, complete: boolean): string | undefined {
  let value = '';
  const reader = new JsonStringFieldStream(field, (text) => (value += text));
  reader.write(raw);
  return reader.found && (reader.done || !complete) ? value : undefined;
}
