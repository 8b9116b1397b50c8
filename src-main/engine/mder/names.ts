import { entityKey, verbaliseTriple } from '../kb/index.js';

/** Relation names are UPPER_SNAKE_CASE words: "was king of" / "wasKingOf" → "WAS_KING_OF". */
export function normaliseRelation(relation: string): string {
  const words = relation
    .normalize('NFKC')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.join('_').toUpperCase();
}

/** Entity names and types: NFC, collapsed whitespace, no surrounding quotes or punctuation. */
export function normaliseName(name: string): string {
  return name
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'“”‘’«».,;:]+|[\s"'“”‘’«».,;:]+$/g, '')
    .trim();
}

/** Identity key of an entity name: the KB's, so "same name" means the same here and there. */
export const nameKey = entityKey;

/** Text of a triple for embeddings and BM25: the KB's verbalisation plus its description. */
export function tripleText(source: string, relation: string, target: string, description: string | null): string {
  const fact = verbaliseTriple(source, relation, target);
  return description ? `${fact}. ${description}` : fact;
}
