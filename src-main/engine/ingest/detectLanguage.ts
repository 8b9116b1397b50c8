import { detectAll } from 'tinyld';

export interface DetectLanguageOptions {
  /**
   * Below this many letters the answer is `und`. Default: 12. Characters of scripts without
   * spaces (CJK, Thai) count 3, as one carries about a word.
   */
  minLetters?: number;
  /** Characters examined, as up to 4 evenly spaced slices of a long text. Default: 4,000. */
  sampleChars?: number;
}

const LETTER = /\p{L}/gu;
const DENSE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;

function sample(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const slices = 4;
  const size = Math.floor(chars / slices);
  const step = (text.length - size) / (slices - 1);
  const parts: string[] = [];
  for (let i = 0; i < slices; i++) parts.push(text.slice(Math.round(i * step), Math.round(i * step) + size));
  return parts.join('\n');
}

/**
 * ISO 639-1 code of the text's language (tinyld; a 3-letter code where the language has no
 * 2-letter one), or `und` when the text is too short or tinyld has no answer.
 */
export function detectLanguage(text: string, options: DetectLanguageOptions = {}): string {
  const { minLetters = 12, sampleChars = 4_000 } = options;
  const s = sample(text, sampleChars);
  const letters = (s.match(LETTER)?.length ?? 0) + 2 * (s.match(DENSE)?.length ?? 0);
  if (letters < minLetters) return 'und';
  const best = detectAll(s)[0];
  return best && /^[a-z]{2,3}$/.test(best.lang) ? best.lang : 'und';
}

/** Primary subtag of a BCP 47 tag (`pt-BR` → `pt`), or undefined when it is not a language code. */
export function primaryLanguage(tag: string | null | undefined): string | undefined {
  const primary = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return primary && /^[a-z]{2,3}$/.test(primary) && primary !== 'und' ? primary : undefined;
}
