import { detectLanguage } from '../ingest/detectLanguage.js';

/** English names of languages for prompts, and the English test, are the ingest helpers'. */
export { isEnglish, languageName } from '../ingest/preprocess/fenceText.js';

/**
 * ISO 639 code of the question's language (the ingest detector), or `fallback` when the text is
 * too short to tell: a single name such as "Odysseus" reads as Latin to any detector.
 */
export function detectQuestionLanguage(text: string, fallback = 'en'): string {
  const code = detectLanguage(text);
  return code === 'und' ? fallback : code;
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
