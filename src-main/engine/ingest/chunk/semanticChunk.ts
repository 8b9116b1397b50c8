import type { NewChunk } from '../../kb/types.js';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { cosine, type Embedder } from '../../models/Embedder.js';
import { splitSentences } from '../segment.js';
import { estimateTokens, splitSpanByTokens } from '../tokens.js';
import type { PageStart, Span, TokenCounter } from '../types.js';
import { toChunk } from './chunkRecord.js';

export interface SemanticChunkOptions {
  embedder: Embedder;
  /** A new chunk starts where the similarity of neighbouring sentence windows drops below this. Default: 0.75 (MDER-DR). */
  threshold?: number;
  /** Sentences on each side of a sentence that make up its window. Default: 1 (three-sentence windows). */
  windowRadius?: number;
  /** Hard cap on a chunk's size; longer sentences are split between words. Default: 512. */
  maxTokens?: number;
  /** Default: {@link estimateTokens}. */
  countTokens?: TokenCounter;
  /** Windows per embed call. Default: 64. */
  batchSize?: number;
  /** Document language: the sentence segmentation locale and the fallback chunk language. */
  language?: string;
  pages?: readonly PageStart[];
  signal?: AbortSignal;
}

/**
 * Semantic windowed chunking (MDER-DR §3.1, after Kamradt): the text is split into sentences,
 * each sentence is embedded together with its neighbours, and a chunk ends where the
 * similarity between one window and the next falls under `threshold`, or where adding the next
 * sentence would pass `maxTokens`. Chunks keep exact character offsets and their page.
 * Embeddings are streamed in batches: memory holds one similarity per sentence, not the vectors.
 */
export async function semanticChunk(text: string, options: SemanticChunkOptions): Promise<NewChunk[]> {
  const { embedder, threshold = 0.75, windowRadius = 1, maxTokens = 512, countTokens = estimateTokens, batchSize = 64, language, pages, signal } = options;
  if (!(maxTokens > 0) || !(batchSize > 0) || !(windowRadius >= 0)) {
    throw new PolyhopError('INVALID_REQUEST', 'semanticChunk: maxTokens and batchSize must be positive, windowRadius non-negative');
  }
  throwIfAborted(signal);
  const sentences: (Span & { tokens: number })[] = [];
  for (const s of splitSentences(text, language)) {
    const tokens = countTokens(text.slice(s.start, s.end));
    if (tokens <= maxTokens) sentences.push({ ...s, tokens });
    else sentences.push(...splitSpanByTokens(text, s, maxTokens, countTokens));
  }
  if (sentences.length === 0) return [];

  // similarity[i] compares the window around sentence i with the window around sentence i + 1.
  const similarity = new Float32Array(Math.max(0, sentences.length - 1));
  const windowText = (i: number) =>
    text.slice(sentences[Math.max(0, i - windowRadius)]!.start, sentences[Math.min(sentences.length - 1, i + windowRadius)]!.end);
  let previous: Float32Array | undefined;
  for (let from = 0; from < sentences.length && sentences.length > 1; from += batchSize) {
    throwIfAborted(signal);
    const to = Math.min(sentences.length, from + batchSize);
    const batch: string[] = [];
    for (let i = from; i < to; i++) batch.push(windowText(i));
    const vectors = await embedder.embed(batch, { purpose: 'passage', ...(signal ? { signal } : {}) });
    for (let k = 0; k < vectors.length; k++) {
      const v = vectors[k]!;
      if (previous) similarity[from + k - 1] = cosine(previous, v);
      previous = v;
    }
  }

  const chunks: NewChunk[] = [];
  let start = 0;
  let tokens = sentences[0]!.tokens;
  for (let i = 1; i <= sentences.length; i++) {
    const next = sentences[i];
    if (next && similarity[i - 1]! >= threshold && tokens + next.tokens <= maxTokens) {
      tokens += next.tokens;
      continue;
    }
    chunks.push(toChunk(text, { start: sentences[start]!.start, end: sentences[i - 1]!.end }, chunks.length, pages, language));
    if (next) {
      start = i;
      tokens = next.tokens;
    }
  }
  return chunks;
}
