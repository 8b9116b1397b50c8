/** Answer languages offered in selects (ISO 639-1/3); names come from Intl in the UI language. */
export const ANSWER_LANGUAGES = [
  'en',
  'it',
  'fr',
  'es',
  'de',
  'pt',
  'nl',
  'sv',
  'pl',
  'ru',
  'uk',
  'el',
  'tr',
  'ar',
  'he',
  'hi',
  'zh',
  'ja',
  'ko',
] as const;

export function languageName(code: string, uiLanguage: string): string {
  try {
    return new Intl.DisplayNames([uiLanguage], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}
