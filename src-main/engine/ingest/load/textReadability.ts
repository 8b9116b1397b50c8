/** Pages with fewer visible characters are too short to judge. */
const MIN_CHARS = 12;
/** Share of replacement, control and private-use characters above which a page is unreadable. */
const MAX_GARBAGE_SHARE = 0.1;
/** Share of letter pairs inside words that change script, above which the text is mojibake. */
const MAX_SCRIPT_SWITCH_SHARE = 0.2;
/** Letter pairs needed before the script-switch share is trusted. */
const MIN_LETTER_PAIRS = 20;

// U+FFFD, C0 controls other than tab/newline/CR, DEL and C1 controls, private-use areas: what a
// reader emits for glyphs it cannot map (PDF.js passes raw glyph ids through as code points).
const GARBAGE = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uE000-\uF8FF\u{F0000}-\u{10FFFF}]/gu;

/** Scripts that mix inside one word in real text count as one: Japanese writes Han, kana (and Latin) together. */
const SCRIPTS: [RegExp, string][] = [
  [/\p{Script=Latin}/u, 'Latin'],
  [/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC]/u, 'CJK'],
  [/\p{Script=Cyrillic}/u, 'Cyrillic'],
  [/\p{Script=Greek}/u, 'Greek'],
  [/\p{Script=Arabic}/u, 'Arabic'],
  [/\p{Script=Hebrew}/u, 'Hebrew'],
  [/\p{Script=Hangul}/u, 'Hangul'],
  [/\p{Script=Devanagari}/u, 'Devanagari'],
  [/\p{Script=Thai}/u, 'Thai'],
  [/\p{Script=Armenian}/u, 'Armenian'],
  [/\p{Script=Georgian}/u, 'Georgian'],
];

function scriptOf(letter: string): string {
  for (const [re, name] of SCRIPTS) if (re.test(letter)) return name;
  return 'Other';
}

/**
 * Why a page's extracted text is not readable text, or undefined when it is: too many
 * replacement/control/private-use characters, or letters that switch script inside words (a
 * font without a Unicode map read through a guessed encoding). Short texts are not judged.
 */
export function unreadableReason(text: string): string | undefined {
  const visible = text.replace(/\s+/g, '');
  const chars = [...visible].length;
  if (chars < MIN_CHARS) return undefined;
  const garbage = visible.match(GARBAGE)?.length ?? 0;
  if (garbage / chars > MAX_GARBAGE_SHARE)
    return `${Math.round((100 * garbage) / chars)}% replacement or control characters`;
  let pairs = 0;
  let switches = 0;
  for (const word of text.match(/\p{L}{2,}/gu) ?? []) {
    const scripts = [...word].map(scriptOf);
    for (let i = 1; i < scripts.length; i++) {
      pairs++;
      if (scripts[i] !== scripts[i - 1]) switches++;
    }
  }
  if (pairs >= MIN_LETTER_PAIRS && switches / pairs > MAX_SCRIPT_SWITCH_SHARE)
    return 'letters switch script inside words (mojibake)';
  return undefined;
}
