/** Pages with fewer visible characters are too short to judge. */
const MIN_CHARS = 12;
/** Share of replacement, control and private-use characters above which a page is unreadable. */
const MAX_GARBAGE_SHARE = 0.1;
/** Share of letter pairs inside words that change script, above which the text is mojibake. */
const MAX_SCRIPT_SWITCH_SHARE = 0.2;
/** Letter pairs needed before the script-switch share is trusted. */
const MIN_LETTER_PAIRS = 20;
/**
 * Share of Latin letters from Latin-1's accented block (À–ÿ) above which the text is another
 * script read as Latin-1 (Chinese through a guessed encoding, as poppler also reads it): French or
 * Icelandic stay far below it.
 */
const MAX_LATIN1_LETTER_SHARE = 0.3;
/** Latin letters needed before that share is trusted. */
const MIN_LATIN_LETTERS = 20;
/**
 * Share of the text in a run repeated 4+ times with no space between the copies: text overprinted
 * for bold, read once per pass. Glyph by glyph or word by word ("TTTThhhheeee", "TheTheTheThe"):
 * letters only. A line at a time ("Heron sailed to HenleyHeron sailed to Henley…"): a run of up to
 * 120 characters that starts a word and ends with a letter, the next copy starting right after it,
 * so words repeated with spaces between them ("Yes Yes Yes Yes Yes") and dot leaders are not repeats.
 */
const MAX_REPEATED_SHARE = 0.5;
const REPEATED_LETTERS = /(\p{L}+?)\1{3,}/gu;
const MAX_REPEATED_LINE = 120;
const LETTER = /\p{L}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Visible characters in lines overprinted 4+ times (see {@link MAX_REPEATED_SHARE}). A loop, not
 * the regex `(?<![\p{L}\p{N}])(\p{L}[^\n]{0,118}?\p{L})\1{3,}`, which took 1.6 µs a character:
 * from each word start only the next occurrences of its first letter after a letter are tried.
 */
function repeatedLineChars(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const first = text[i]!;
    if (!LETTER.test(first) || (i > 0 && WORD_CHAR.test(text[i - 1]!))) continue;
    const newline = text.indexOf('\n', i);
    const end = Math.min(i + MAX_REPEATED_LINE, newline === -1 ? text.length : newline);
    for (let j = text.indexOf(first, i + 2); j !== -1 && j <= end; j = text.indexOf(first, j + 1)) {
      if (!LETTER.test(text[j - 1]!)) continue;
      const unit = text.slice(i, j);
      let k = j;
      let copies = 1;
      while (text.startsWith(unit, k)) {
        copies++;
        k += unit.length;
      }
      if (copies < 4) continue;
      total += text.slice(i, k).replace(/\s+/g, '').length;
      i = k - 1;
      break;
    }
  }
  return total;
}

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
  const garbage = visible.match(GARBAGE)?.length ?? 0;
  // A short text is not judged, unless it is nothing but such characters (a page of one NUL).
  if (chars > 0 && garbage === chars) return 'only replacement or control characters';
  if (chars < MIN_CHARS) return undefined;
  if (garbage / chars > MAX_GARBAGE_SHARE)
    return `${Math.round((100 * garbage) / chars)}% replacement or control characters`;
  const repeatedLetters = [...text.matchAll(REPEATED_LETTERS)].reduce((n, m) => n + [...m[0]].length, 0);
  if (Math.max(repeatedLetters, repeatedLineChars(text)) / chars > MAX_REPEATED_SHARE)
    return 'text repeated without spaces (overprinted glyphs)';
  const latin = visible.match(/\p{Script=Latin}/gu)?.length ?? 0;
  const latin1 = visible.match(/[\u00C0-\u00FF]/gu)?.length ?? 0;
  if (latin >= MIN_LATIN_LETTERS && latin1 / latin > MAX_LATIN1_LETTER_SHARE)
    return 'accented Latin-1 letters where another script was meant (mojibake)';
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

/**
 * The readable lines of a page that is unreadable as a whole (a CJK font half of whose glyphs have
 * no Unicode map): each line judged on its own, a line too short to judge kept only when it holds
 * no replacement or control character. `dropped` counts the lines left out.
 */
export function readableLines(text: string): { text: string; dropped: number } {
  const kept: string[] = [];
  let dropped = 0;
  for (const line of text.split('\n')) {
    const clean = (line.match(GARBAGE)?.length ?? 0) === 0;
    if (unreadableReason(line) === undefined && (clean || [...line.replace(/\s+/g, '')].length >= MIN_CHARS))
      kept.push(line);
    else dropped++;
  }
  return { text: kept.join('\n').trim() ? kept.join('\n') : '', dropped };
}
