/**
 * Makes document text safe to place between `<document>` tags in a prompt: a document cannot
 * close the fence (and smuggle instructions after it) because `<document` / `</document` inside
 * it are neutralised. Empty text becomes "(none)" so the model sees the part is absent.
 */
export function fenceText(text: string | null | undefined): string {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return '(none)';
  return trimmed.replace(/<(\/?)document/gi, '‹$1document');
}

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
