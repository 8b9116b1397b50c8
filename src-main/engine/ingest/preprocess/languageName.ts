/** English names of language codes for prompts ("it" → "Italian"); unknown codes pass through. */
export function languageName(code: string | null | undefined): string {
  if (!code) return 'unknown';
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** True for English or an unknown language (unknown text is not sent to translation). */
export function isEnglish(code: string | null | undefined): boolean {
  return !code || code === 'en' || code.startsWith('en-') || code === 'und';
}
