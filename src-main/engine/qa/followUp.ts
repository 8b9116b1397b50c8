import { z } from 'zod';
import { PolyhopError } from '../base/errors.js';
import { fence } from '../base/fence.js';
import { entityKey } from '../kb/entityKey.js';
import { disputedLanguages, guessLanguage, languageToWrite, readLanguage, settlementNote } from './language.js';
import { QaRun } from './QaRun.js';
import { QA_DEFAULTS } from './settings.js';
import type { FollowUpRewrite } from './Answer.js';
import type { QaContext } from './types.js';

/** An earlier turn as the rewrite sees it. */
export interface EarlierTurn {
  /** The standalone question it was answered as. */
  question: string;
  /** Its short answer, else its explained answer. */
  answer: string;
  /** The language it was asked in. */
  language?: string;
}

export interface RewriteOptions {
  signal?: AbortSignal;
  /** The interface language: a hint for a follow-up too short to tell. */
  uiLanguage?: string;
}

/** The latest turns the rewrite reads, and how much of each answer. */
const TURNS_READ = 4;
const ANSWER_CHARS = 400;
/** A reply longer than this is rambling, not a question. */
const MAX_STANDALONE_CHARS = 1000;
const REWRITE_MAX_TOKENS = 200;

const RewriteSchema = z.object({ standalone: z.string() });

/**
 * Makes a follow-up standalone from the earlier turns of its thread with one structured call
 * (prompt `qa/rewrite`), in the follow-up's language. The first turn of a thread is not rewritten.
 * A rewrite is kept only when it names something from the thread the follow-up did not (or is the
 * follow-up itself, when that has a name of its own): a reply that drops the referent, an empty or
 * rambling one, or no model at all gives the follow-up with the previous turn appended, so that
 * retrieval still sees what it refers to. The trace step says which, with the call's tokens.
 */
export async function rewriteFollowUp(
  ctx: QaContext,
  earlier: readonly EarlierTurn[],
  followUp: string,
  options: RewriteOptions = {},
): Promise<FollowUpRewrite> {
  const trimmed = followUp.trim();
  if (!trimmed) throw new PolyhopError('INVALID_REQUEST', 'qa/rewrite: the question is empty');
  const previous = earlier.at(-1)?.language;
  const guess = guessLanguage(trimmed, {
    kbLanguages: ctx.kb.documents.documentLanguages(),
    ...(options.uiLanguage ? { uiLanguage: options.uiLanguage } : {}),
  });
  // A follow-up too short to tell is most likely in the language the thread is asked in; but that
  // may be one tie-break's pick ('en' for an Italian first turn): when the detector's likeliest
  // differs, the rewrite, prose in the follow-up's language, settles which (as the final answer does).
  const pick = !guess.confident && previous && guess.candidates.includes(previous) ? previous : guess.language;
  const dispute = disputedLanguages(pick, guess);
  let language = pick;
  const run = new QaRun(ctx, ctx.settings ?? QA_DEFAULTS, trimmed, language, {
    strategy: 'dr',
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let how: FollowUpRewrite['how'] = 'model';
  const standalone = await run.step('rewrite', async (s) => {
    s.detail.followUp = trimmed;
    s.detail.language = language;
    if (earlier.length === 0) {
      how = 'first-turn';
      s.detail.skipped = 'the first turn of a thread is asked as it is';
      s.detail.standalone = trimmed;
      return trimmed;
    }
    let problem: string | null;
    if (ctx.llm === null) problem = 'no generation model to rewrite it';
    else {
      const reply = await s.tryJson(
        'qa/rewrite',
        {
          conversation: fence(renderTurns(earlier)),
          followUp: fence(trimmed),
          language: languageToWrite(pick, dispute, 'follow-up'),
        },
        RewriteSchema,
        REWRITE_MAX_TOKENS,
      );
      const suggested = reply?.standalone.trim() ?? '';
      s.detail.suggested = suggested || null;
      problem = reply === null ? 'the reply failed its schema' : rewriteProblem(suggested, trimmed, earlier);
      if (problem === null) {
        if (dispute) {
          const settlement = settlementNote(dispute, readLanguage(suggested, dispute), 'the rewrite', 'the thread');
          language = settlement.settled;
          s.detail.language = language;
          Object.assign(s.detail, settlement);
        }
        const kept = guessLanguage(suggested, { kbLanguages: [language] });
        s.detail.languageKept = kept.language === language || !kept.confident;
        s.detail.standalone = suggested;
        return suggested;
      }
    }
    how = 'fallback';
    const fallback = appendPrevious(trimmed, earlier.at(-1)!);
    s.detail.problem = problem;
    s.detail.standalone = fallback;
    return fallback;
  });
  return { followUp: trimmed, standalone, how, language, step: run.trace[0]!, usage: run.usage() };
}

/** Why a model's rewrite cannot stand for the follow-up, or null when it can. */
export function rewriteProblem(suggested: string, followUp: string, earlier: readonly EarlierTurn[]): string | null {
  if (!suggested) return 'the model gave no standalone question';
  if (suggested.length > MAX_STANDALONE_CHARS) return `the rewrite is longer than ${MAX_STANDALONE_CHARS} characters`;
  const asked = new Set(words(followUp));
  const thread = new Set(earlier.flatMap((t) => [...words(t.question), ...words(t.answer)]));
  if (words(suggested).some((w) => thread.has(w) && !asked.has(w))) return null;
  // Unchanged is right for a follow-up that names what it asks about itself.
  if (entityKey(suggested) === entityKey(followUp) && hasOwnName(followUp)) return null;
  return 'the rewrite names nothing from the earlier turns (the referent is lost)';
}

/** The fallback: the follow-up, then what the previous turn asked and answered. */
function appendPrevious(followUp: string, previous: EarlierTurn): string {
  const answer = clip(stripCitations(previous.answer), 200);
  return `${followUp} (${previous.question}${answer ? ` ${answer}` : ''})`;
}

function renderTurns(earlier: readonly EarlierTurn[]): string {
  return earlier
    .slice(-TURNS_READ)
    .map((t) => `Q: ${t.question}\nA: ${clip(stripCitations(t.answer), ANSWER_CHARS) || '(no answer)'}`)
    .join('\n\n');
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The words that can carry a referent: letters-and-digits runs of three or more characters,
 * case-folded; a run in a script written without spaces counts by its character pairs.
 */
function words(text: string): string[] {
  return (entityKey(text).match(/[\p{L}\p{N}]+/gu) ?? []).flatMap((w) => {
    if (!CJK.test(w)) return w.length >= 3 ? [w] : [];
    const chars = [...w];
    return chars.length === 1 ? chars : chars.slice(1).map((c, i) => chars[i]! + c);
  });
}

/** A capitalised word after the first one (a script without capitals cannot tell, so never). */
function hasOwnName(text: string): boolean {
  return text.split(/\s+/u).some((w, i) => i > 0 && /^[¿¡("'«]*\p{Lu}/u.test(w));
}

const stripCitations = (text: string): string => text.replace(/\s*\[\d+(?:,\s*\d+)*\]/gu, '').trim();
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
