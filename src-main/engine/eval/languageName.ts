const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** English name of a language code for prompts (`it` → `Italian`); the code itself when unknown. */
export function languageName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
