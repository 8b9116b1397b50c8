/**
 * Every tag the prompts fence untrusted text with: document text and everything derived from it
 * (entity names, types, relations, descriptions, summaries, sub-answers) and the user's question.
 */
export const FENCE_TAGS = [
  'document',
  'question',
  'evidence',
  'passages',
  'candidates',
  'triples',
  'pairs',
  'entities',
  'graph',
  'reasoning',
  'response',
  'expected_answer',
  'accepted_alternatives',
  'answers',
] as const;

const FENCE_TAG_PATTERN = new RegExp(`<(/?)(${FENCE_TAGS.join('|')})`, 'gi');

/**
 * Makes untrusted text safe between fence tags in a prompt: it cannot close its fence and smuggle
 * instructions after it. Every fence tag is neutralised, whichever fence the text goes in, since
 * blocks formatted for one fence are placed inside others (evidence inside `<passages>`, excerpts
 * inside `<pairs>`). Empty text becomes "(none)" so the model sees the part is absent.
 */
export function fence(text: string | null | undefined): string {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return '(none)';
  return trimmed.replace(FENCE_TAG_PATTERN, '‹$1$2');
}
