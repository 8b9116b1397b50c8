import { detectLanguage } from '../ingest/detectLanguage.js';

/** English names of languages for prompts, and the English test, are the ingest helpers'. */
export { isEnglish, languageName } from '../ingest/preprocess/languageName.js';

/**
 * ISO 639 code of the question's language (the ingest detector), or `fallback` when the text is
 * too short to tell: a single name such as "Odysseus" reads as Latin to any detector.
 */
export function detectQuestionLanguage(text: string, fallback = 'en'): string {
  const code = detectLanguage(text);
  return code === 'und' ? fallback : code;
}
