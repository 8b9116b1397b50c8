import { detectAll } from 'tinyld';
import { primaryLanguage } from '../ingest/detectLanguage.js';
import { languageName } from '../ingest/preprocess/languageName.js';

/** English names of languages for prompts, and the English test, are the ingest helpers'. */
export { isEnglish, languageName } from '../ingest/preprocess/languageName.js';

/** What the asker's setting says about the languages a question is likely in. */
export interface LanguageHints {
  /** Languages the KB's documents are written in, most chunks first. */
  kbLanguages?: readonly string[];
  /** The user's interface language (`Settings.uiLanguage`). */
  uiLanguage?: string | undefined;
}

/** A language guess, with the languages it was chosen among when the text alone cannot tell. */
export interface LanguageGuess {
  /** ISO 639 code. */
  language: string;
  /** False when the text is too short or too full of names to tell: {@link candidates} then need a tie-breaker. */
  confident: boolean;
  /** The likeliest languages, best first (the guess first). */
  candidates: string[];
  /**
   * The candidates the text cannot rule out, best first: the guess alone when confident, else those
   * scoring at least 1/{@link CONFIDENT_RATIO} of the guess (the margin under which it is not confident).
   */
  plausible: string[];
  /** In words, for the trace. */
  why: string;
}

/**
 * Scripts written in one language (a script shared by several, as Cyrillic or Arabic, goes to the
 * statistical detector). Kana anywhere makes a Han text Japanese.
 */
const SCRIPT_LANGUAGE: readonly [RegExp, string][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Hangul}/u, 'ko'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Armenian}/u, 'hy'],
  [/\p{Script=Georgian}/u, 'ka'],
  [/\p{Script=Han}/u, 'zh'],
];
const LATIN = /\p{Script=Latin}/gu;
const LETTER = /\p{L}/gu;
const LETTER_ONE = /\p{L}/u;
/** Weight of the question's own words (names removed) against the whole text, names included. */
const OWN_WORDS_WEIGHT = 2;
const WHOLE_TEXT_WEIGHT = 0.25;
/** Added to a language the KB is written in or the interface uses: it breaks near-ties toward them. */
const HINT_BONUS = 0.15;
/** A guess decides without a tie-breaker when its score is at least this many times the runner-up's … */
const CONFIDENT_RATIO = 2;
/** … and at least this (tinyld gives a short text low accuracies all round). */
const CONFIDENT_SCORE = 0.4;
const MAX_CANDIDATES = 5;

/**
 * The languages a question may be in that the KB has a corpus in (English always has one), the
 * detector's likeliest first, and `chosen` (the tie-breaker's pick) among them: more than one only
 * when the detector could not rule them out (see {@link LanguageGuess.plausible}), so that a
 * strategy can search each corpus rather than trust one guess, the tie-breaker's included (a small
 * model under a grammar may pick the wrong candidate).
 */
export function plausibleCorpusLanguages(
  chosen: string,
  guess: LanguageGuess,
  kbLanguages: readonly string[],
): string[] {
  const corpora = new Set(['en', ...kbLanguages.map((l) => primaryLanguage(l) ?? 'und')]);
  return [...new Set([...guess.plausible.filter((l) => corpora.has(l)), chosen])];
}

/**
 * The two languages an answer settles a question's language between, the detector's likeliest
 * and the tie-breaker's pick, when the detector was not confident and the two differ; else null.
 * The pick is one enum value under a grammar, which a small model may get wrong ("Who painted La
 * Gioconda?" taken as Italian); a model writing the whole answer in prose follows the question's
 * language far more reliably, so it is asked for the one of the two the question is written in.
 */
export function disputedLanguages(chosen: string, guess: LanguageGuess): [string, string] | null {
  const likeliest = guess.plausible[0];
  return !guess.confident && likeliest !== undefined && likeliest !== chosen ? [likeliest, chosen] : null;
}

/**
 * What a prompt names as the language to write in: `language`, or for a {@link disputedLanguages}
 * pair "whichever of X and Y the <what> is written in", so that the model's prose can settle it
 * (see {@link settlementNote}).
 */
export function languageToWrite(language: string, dispute: readonly [string, string] | null, what: string): string {
  return dispute
    ? `whichever of ${languageName(dispute[0])} and ${languageName(dispute[1])} the ${what} is written in`
    : languageName(language);
}

/**
 * The trace's account of a dispute that `read` settled or left open: the pair, what the prose read
 * as, the language that stands (the pick, `dispute[1]`, when it did not settle) and why.
 * `prose` names what was read ("the answer"), `pick` who picked the second language ("the tie-break").
 */
export function settlementNote(
  dispute: readonly [string, string],
  read: string | null,
  prose: string,
  pick: string,
): { unsure: readonly [string, string]; read?: string; settled: string; note: string } {
  const settles = read !== null && dispute.includes(read);
  return {
    unsure: dispute,
    ...(read !== null ? { read } : {}),
    settled: settles ? read : dispute[1],
    note: `the question read as ${languageName(dispute[0])} or ${languageName(dispute[1])}: ${
      settles
        ? `${prose} is written in ${languageName(read)}, taken as the question's language`
        : `${prose} ${read !== null ? `stayed in ${languageName(read)}` : 'does not tell which'}, so ${pick}'s ${languageName(dispute[1])} stands`
    }`,
  };
}

/** The language a text confidently reads as, `hints` breaking near-ties toward them (citations ignored); null when it cannot tell. */
export function readLanguage(text: string, hints: readonly string[]): string | null {
  const guess = guessLanguage(text.replace(/\[\d+(?:\s*[,;]\s*\d+)*\]/g, ' '), { kbLanguages: hints });
  return guess.confident ? guess.language : null;
}

/** The language a text reads as when it is clearly not `expected`, else null (too short, names only, or right). */
export function writtenLanguage(text: string, expected: string): string | null {
  const read = readLanguage(text, [expected]);
  return read !== expected ? read : null;
}

/**
 * The language of a short, name-heavy text such as a question. A statistical detector reads names
 * as their language ("Who painted La Gioconda?" is Italian, "Where is Reykjavík?" Icelandic, both
 * at tinyld's confidence 1.0), so: a script written in one language decides alone; otherwise the
 * words left once names are removed (capitalised words after the first, quoted spans) weigh most,
 * the whole text little, and the KB's languages and the interface language break near-ties. When
 * no language leads clearly the guess is not `confident`, and its candidates go to a tie-breaker
 * (the model, see `ask`).
 */
export function guessLanguage(text: string, hints: LanguageHints = {}): LanguageGuess {
  const hinted = [
    ...new Set(
      [...(hints.kbLanguages ?? []), hints.uiLanguage]
        .map((l) => primaryLanguage(l))
        .filter((l): l is string => l !== undefined),
    ),
  ];
  const letters = text.match(LETTER)?.length ?? 0;
  const latin = text.match(LATIN)?.length ?? 0;
  if (letters > 0 && latin * 2 < letters) {
    const single = SCRIPT_LANGUAGE.find(([script]) => script.test(text));
    if (single)
      return {
        language: single[1],
        confident: true,
        candidates: [single[1]],
        plausible: [single[1]],
        why: 'its script is written in one language',
      };
  }
  const scores = new Map<string, number>();
  const add = (ranked: readonly { lang: string; accuracy: number }[], weight: number): void => {
    for (const r of ranked)
      if (/^[a-z]{2,3}$/.test(r.lang)) scores.set(r.lang, (scores.get(r.lang) ?? 0) + weight * r.accuracy);
  };
  const own = ownWords(text);
  // A lone word ("Odysseus?") is a name in any language: the interface's, the KB's or English, as the asker may say.
  const fallback = primaryLanguage(hints.uiLanguage) ?? hinted[0] ?? 'en';
  // No scores to compare: nothing among the fallbacks can be ruled out.
  const fallbacks = [...new Set([fallback, ...hinted, 'en'])].slice(0, MAX_CANDIDATES);
  if (own.split(/\s+/u).filter((w) => LETTER_ONE.test(w)).length < 2) {
    return {
      language: fallback,
      confident: false,
      candidates: fallbacks,
      plausible: fallbacks,
      why: 'too few words of its own to tell',
    };
  }
  add(detectAll(own), OWN_WORDS_WEIGHT);
  add(detectAll(text), WHOLE_TEXT_WEIGHT);
  for (const l of hinted) if (scores.has(l)) scores.set(l, scores.get(l)! + HINT_BONUS);
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  const [top, second] = ranked;
  if (!top)
    return {
      language: fallback,
      confident: false,
      candidates: fallbacks,
      plausible: fallbacks,
      why: 'no detector answer',
    };
  const confident = top[1] >= CONFIDENT_SCORE && top[1] >= CONFIDENT_RATIO * (second?.[1] ?? 0);
  const candidates = [
    ...new Set([...ranked.slice(0, 3).map(([l]) => l), ...hinted.filter((l) => scores.has(l))]),
  ].slice(0, MAX_CANDIDATES);
  const why = confident
    ? `its own words read as ${top[0]}`
    : `its few words read as ${ranked
        .slice(0, 2)
        .map(([l, s]) => `${l} (${Math.round(s * 100) / 100})`)
        .join(' or ')}`;
  const plausible = confident ? [top[0]] : candidates.filter((l) => CONFIDENT_RATIO * scores.get(l)! >= top[1]);
  return { language: top[0], confident, candidates, plausible, why };
}

/**
 * The text without what names look like: quoted spans and capitalised words after the first
 * word of a sentence. German capitalises its nouns, so its questions lose them too; its
 * function words stay, which is what tells the language.
 */
function ownWords(text: string): string {
  const unquoted = text.replace(/["“”«»„‟‘’][^"“”«»„‟‘’]*["“”«»„‟‘’]/gu, ' ');
  return unquoted
    .split(/(?<=[.!?¿¡])\s+/u)
    .map((sentence) =>
      sentence
        .split(/\s+/u)
        .filter((word, i) => i === 0 || !/^[¿¡("'«]*\p{Lu}/u.test(word))
        .join(' '),
    )
    .join(' ');
}
