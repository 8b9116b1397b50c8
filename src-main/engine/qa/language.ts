import { detect } from 'tinyld';

/** Scripts written without spaces between words: one "word" can be a whole question. */
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * ISO 639-1 code of the question's language, or `fallback` when the text is too short to tell
 * (a single word such as "Odysseus" reads as Latin to any detector).
 */
export function detectQuestionLanguage(text: string, fallback = 'en'): string {
  const words = text.match(/\p{L}+/gu) ?? [];
  if (words.length < 2 && !UNSPACED_SCRIPT.test(text)) return fallback;
  const code = detect(text);
  return code || fallback;
}

export function isEnglish(code: string): boolean {
  return code === 'en' || code.startsWith('en-');
}

/** English name of a language code for prompts ("it" → "Italian"); unknown codes pass through. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Makes untrusted text safe between `<tag>` fences in a prompt: the text cannot close the fence and
 * smuggle instructions after it. Empty text becomes "(none)".
 */
export function fence(text: string, tag: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '(none)';
  return trimmed.replace(new RegExp(`<(/?)${tag}`, 'gi'), '‹$1' + tag);
}
