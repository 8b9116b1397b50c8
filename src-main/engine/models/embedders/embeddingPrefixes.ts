import type { EmbedPurpose } from '../Embedder.js';

/** Text put before queries and passages; models trained with such markers need them at run time. */
export interface EmbeddingPrefixes {
  query: string;
  passage: string;
}

/**
 * Prefixes a model family was trained with, recognised from its name (folder or file name, or the
 * config's `_name_or_path`). Unknown models get none; callers can always override.
 * - e5 (`multilingual-e5-*`, `e5-*-v2`): `query: ` / `passage: `; the `-instruct` variants take a
 *   task instruction instead, which only the caller can write.
 * - nomic-embed: `search_query: ` / `search_document: `.
 */
export function detectEmbeddingPrefixes(names: readonly string[]): EmbeddingPrefixes {
  const name = names.join(' ').toLowerCase();
  if (/(^|[^a-z0-9])e5([^a-z0-9]|$)/.test(name) && !name.includes('instruct'))
    return { query: 'query: ', passage: 'passage: ' };
  if (name.includes('nomic-embed')) return { query: 'search_query: ', passage: 'search_document: ' };
  return { query: '', passage: '' };
}

export function applyPrefix(
  texts: readonly string[],
  prefixes: EmbeddingPrefixes,
  purpose: EmbedPurpose = 'passage',
): string[] {
  const prefix = purpose === 'query' ? prefixes.query : prefixes.passage;
  return prefix ? texts.map((t) => prefix + t) : [...texts];
}
