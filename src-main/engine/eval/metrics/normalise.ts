/**
 * Answer normalisation for the lexical metrics.
 *
 * - {@link squadNormalise}: the `normalize_answer` of the official SQuAD v1.1 script, shared
 *   verbatim by the HotpotQA, 2WikiMultihopQA and MuSiQue scripts (and so by HippoRAG and DaPT):
 *   lowercase, delete ASCII punctuation, drop English articles, collapse whitespace as Python's
 *   `str.split()` does.
 * - {@link normaliseAnswer}: the language-aware variant (in the spirit of MLQA's evaluation
 *   script): Unicode NFKC, lowercase, elided articles (`l'`, `un'`), every Unicode punctuation
 *   and symbol, the articles of the answer's language, and word segmentation by
 *   `Intl.Segmenter` for scripts written without spaces (zh, ja, th, lo, km, my).
 */

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** Python's `\b` is Unicode-aware; JS's is not, so word edges are spelled out. */
const EDGE_BEFORE = '(?<![\\p{L}\\p{N}_])';
const EDGE_AFTER = '(?![\\p{L}\\p{N}_])';
const ENGLISH_ARTICLES = new RegExp(`${EDGE_BEFORE}(a|an|the)${EDGE_AFTER}`, 'gu');

/**
 * The characters Python's `str.isspace()` accepts, i.e. what `str.split()` splits on. Not JS's
 * `\s`: Python splits on U+001C–U+001F and U+0085 (NEL) but not on U+FEFF (BOM).
 */
// Stryker disable next-line Regex: its regex mutator turns \v into \V, which the u flag rejects (the module would not load).
const PYTHON_WHITESPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** Python's `text.split()`: runs of whitespace separate, no empty tokens. */
export function pythonSplit(text: string): string[] {
  return text.split(PYTHON_WHITESPACE).filter(Boolean);
}

/** SQuAD v1.1 `normalize_answer`, step for step. */
export function squadNormalise(text: string): string {
  const lower = text.toLowerCase();
  const noPunct = lower.replace(ASCII_PUNCTUATION, '');
  return pythonSplit(noPunct.replace(ENGLISH_ARTICLES, ' ')).join(' ');
}

/** Tokens of {@link squadNormalise} (`normalize_answer(s).split()`). */
export function squadTokens(text: string): string[] {
  const s = squadNormalise(text);
  return s ? s.split(' ') : [];
}

/** Definite and indefinite articles by language; languages without articles have none. */
const ARTICLES: Record<string, readonly string[]> = {
  en: ['a', 'an', 'the'],
  it: ['il', 'lo', 'la', 'i', 'gli', 'le', 'un', 'uno', 'una'],
  fr: ['le', 'la', 'les', 'un', 'une', 'des'],
  es: ['el', 'la', 'lo', 'los', 'las', 'un', 'una', 'unos', 'unas'],
  pt: ['o', 'a', 'os', 'as', 'um', 'uma', 'uns', 'umas'],
  ca: ['el', 'la', 'els', 'les', 'un', 'una'],
  de: ['der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'einem', 'einer', 'eines'],
  nl: ['de', 'het', 'een'],
};
/** Articles written elided onto the next word (`l'uomo`, `un'isola`). */
const ELIDED: Record<string, readonly string[]> = {
  it: ['l', 'un', 'dell', 'all', 'nell', 'sull'],
  fr: ['l'],
  ca: ['l'],
};
const SEGMENTED = new Set(['zh', 'ja', 'th', 'lo', 'km', 'my']);

const articlePatterns = new Map<string, RegExp | null>();
function articlePattern(language: string): RegExp | null {
  let re = articlePatterns.get(language);
  if (re === undefined) {
    const words = ARTICLES[language];
    re = words ? new RegExp(`${EDGE_BEFORE}(${words.join('|')})${EDGE_AFTER}`, 'gu') : null;
    articlePatterns.set(language, re);
  }
  return re;
}

function primary(language: string): string {
  return language.toLowerCase().split(/[-_]/)[0] ?? '';
}

/** True for languages written without spaces between words, tokenised by `Intl.Segmenter`. */
export function usesWordSegmenter(language: string): boolean {
  return SEGMENTED.has(primary(language));
}

/**
 * Characters that separate words without being spaces or punctuation: control characters,
 * zero-width space, word joiner, BOM, and superscript/subscript digits and signs (a footnote
 * marker like "Penelope¹" must not become "penelope1" under NFKC). ZWJ/ZWNJ stay: they are
 * part of words in Indic and Persian script. Soft hyphens vanish.
 */
const INVISIBLE_SEPARATORS = /[\p{Cc}\u200b\u2060\ufeff\u00b2\u00b3\u00b9\u2070-\u209f]/gu;
const SOFT_HYPHEN = /\u00ad/g;
/** `[1]`, `[1][3]`, `[1, 2]`: the citation markers the answer prompts ask for. */
const CITATION_MARKER = /\[\d+(?:\s*[,;]\s*\d+)*\]/g;
const ANY_WHITESPACE = /[\s\x1c-\x1f\x85]+/u;

/** Removes citation markers (`[n]`) so a cited answer compares as the words it says. */
export function stripCitations(text: string): string {
  return text.replace(CITATION_MARKER, ' ');
}

/** Invisible separators → space, NFKC, lowercase, elided articles split off, Unicode punctuation and symbols → `replacement`. */
function clean(text: string, language: string, replacement: string): string {
  let s = text.replace(SOFT_HYPHEN, '').replace(INVISIBLE_SEPARATORS, ' ').normalize('NFKC').toLowerCase();
  const elided = ELIDED[primary(language)];
  if (elided) s = s.replace(new RegExp(`${EDGE_BEFORE}(${elided.join('|')})['’]`, 'gu'), ' ');
  return s.replace(/[\p{P}\p{S}]/gu, replacement);
}

export interface NormaliseOptions {
  /**
   * `delete`: punctuation is removed, joining what it separated ("U.S." → "us"), as SQuAD.
   * `space`: punctuation separates words ("Odysseus's" → "odysseus s"). Default: `delete`.
   */
  punctuation?: 'delete' | 'space';
}

/** Language-aware counterpart of {@link squadNormalise}. */
export function normaliseAnswer(text: string, language: string, options: NormaliseOptions = {}): string {
  const lang = primary(language);
  let s = clean(text, lang, options.punctuation === 'space' ? ' ' : '');
  const articles = articlePattern(lang);
  if (articles) s = s.replace(articles, ' ');
  return usesWordSegmenter(lang) ? segment(s, lang).join(' ') : collapse(s);
}

/** Tokens of {@link normaliseAnswer} (for token F1). */
export function answerTokens(text: string, language: string): string[] {
  const s = normaliseAnswer(text, language);
  return s ? s.split(' ') : [];
}

/**
 * Tokens for ROUGE and BLEU: NFKC, lowercase, punctuation and invisible characters as
 * separators, articles kept (as the `rouge-score` tokenizer, but Unicode-aware and segmenting
 * zh/ja/th).
 */
export function textTokens(text: string, language: string): string[] {
  const lang = primary(language);
  const s = clean(text, lang, ' ');
  if (usesWordSegmenter(lang)) return segment(s, lang);
  return s.split(ANY_WHITESPACE).filter(Boolean);
}

const segmenters = new Map<string, Intl.Segmenter>();
function segment(text: string, language: string): string[] {
  let seg = segmenters.get(language);
  if (!seg) {
    seg = new Intl.Segmenter(language, { granularity: 'word' });
    segmenters.set(language, seg);
  }
  const out: string[] = [];
  for (const s of seg.segment(text)) if (s.isWordLike) out.push(s.segment);
  return out;
}

function collapse(text: string): string {
  return text.split(ANY_WHITESPACE).filter(Boolean).join(' ');
}
