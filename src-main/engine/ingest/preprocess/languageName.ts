const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** English names of language codes for prompts ("it" → "Italian"); unknown codes pass through. */
export function languageName(code: string | null | undefined): string {
  if (!code) return 'unknown';
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

export { isEnglish } from '../../base/englishLanguage.js';
