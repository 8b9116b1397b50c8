import { isEnglish } from '../base/englishLanguage.js';
import type { ChunkRecord } from './types.js';

/**
 * A KB's chunks form two corpora, as DaPT (seed 002, 2.3) retrieves from one per language:
 * - the English corpus: each chunk's English text (the translation or summary that feeds
 *   extraction), vectors `chunk`, BM25 `fts_chunk`;
 * - the original-language corpus: each chunk as written, BM25 `fts_chunk_original` over every
 *   chunk, vectors `chunk_original` for non-English chunks only. An English chunk is in English in
 *   both, so its `chunk` vector serves both corpora rather than being embedded twice.
 */

/** The text `fts_chunk` holds: the English text, and for an English chunk also its own text (English as well). */
export function englishCorpusText(chunk: Pick<ChunkRecord, 'text' | 'englishText' | 'language'>): string {
  const english = chunk.englishText ?? chunk.text;
  return isEnglish(chunk.language) && english !== chunk.text ? `${chunk.text}\n${english}` : english;
}

/** A chunk's text in English: an English chunk's own text, else its English text (the original until it has one). */
export function englishTextOf(chunk: Pick<ChunkRecord, 'text' | 'englishText' | 'language'>): string {
  return isEnglish(chunk.language) ? chunk.text : (chunk.englishText ?? chunk.text);
}
