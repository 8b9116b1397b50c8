import type { EvalItem } from '../types.js';
import type { PassageSet } from './PassageSet.js';

/**
 * A question read from a file whose passages are not yet added: the dataset keeps only the
 * passages of the questions it selects (limit, sample), so a 20-question run indexes 200
 * paragraphs, not the whole file's.
 */
export interface PendingItem {
  id: string;
  build(passages: PassageSet): EvalItem;
}

/** Joins a dataset's sentence list the way its published corpora do (HotpotQA sentences carry their own leading space). */
export function joinSentences(sentences: readonly string[]): string {
  let text = '';
  for (const s of sentences) text += text && !/^\s/.test(s) ? ` ${s}` : s;
  return text.trim();
}

/** Gold answer first, aliases after, blanks and repeats dropped. */
export function answerList(...groups: (string | readonly string[] | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const g of groups)
    for (const a of typeof g === 'string' ? [g] : (g ?? []))
      if (a.trim() && !out.includes(a.trim())) out.push(a.trim());
  return out;
}
