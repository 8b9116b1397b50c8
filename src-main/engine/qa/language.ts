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

/** Every tag the prompts fence untrusted text with. */
const FENCE_TAGS = ['document', 'question', 'evidence', 'passages', 'candidates'];

/**
 * Makes untrusted text safe between `<tag>` fences in a prompt: the text cannot close the fence and
 * smuggle instructions after it. Every fence tag is neutralised, not only `tag`: a block formatted
 * for one fence may be placed inside another (evidence blocks inside `<passages>`). Empty text
 * becomes "(none)".
 */
export function fence(text: string, tag: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '(none)';
  const tags = FENCE_TAGS.includes(tag) ? FENCE_TAGS : [...FENCE_TAGS, tag];
  return trimmed.replace(new RegExp(`<(/?)(${tags.join('|')})`, 'gi'), '‹$1$2');
}
