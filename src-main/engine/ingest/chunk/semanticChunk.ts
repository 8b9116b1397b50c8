import type { NewChunk } from '../../kb/types.js';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { cosine, type Embedder } from '../../models/Embedder.js';
import { splitSentences } from '../segment.js';
import { estimateTokens, splitSpanByTokens } from '../tokens.js';
import type { PageStart, Span, TokenCounter } from '../types.js';
import { quantile } from '../../base/quantile.js';
import { toChunk } from './chunkRecord.js';

export interface SemanticChunkOptions {
  embedder: Embedder;
  /**
   * An absolute breakpoint: a new chunk starts where the similarity of neighbouring sentence
   * windows drops below this (MDER-DR's 0.75, tuned on mxbai-embed-large). Unset by default, so
   * {@link breakpointPercentile} decides.
   */
  threshold?: number;
  /**
   * Without `threshold`: a new chunk starts where the distance (1 − similarity) between
   * neighbouring windows is above this percentile of the document's own distances (Kamradt's
   * method), which follows any embedder's similarity scale. Default: 95.
   */
  breakpointPercentile?: number;
  /** Sentences in the window on each side of a gap between sentences. Default: 2. */
  windowSentences?: number;
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
 * Semantic windowed chunking (MDER-DR §3.1, after Kamradt): the text is split into sentences;
 * at each gap between sentences the window of `windowSentences` sentences before it is compared
 * with the window after it, and a chunk ends where their embedding similarity is among the
 * document's lowest (distance above the `breakpointPercentile`-th percentile) or under an absolute
 * `threshold` when one is set, or where adding the next sentence would pass `maxTokens`. The windows do not
 * overlap, so a topic change shows as a dip instead of being averaged away. Chunks keep exact
 * character offsets and their page. Embeddings stream in batches and only the last
 * `windowSentences` vectors are kept: memory holds one similarity per gap.
 */
export async function semanticChunk(text: string, options: SemanticChunkOptions): Promise<NewChunk[]> {
  const {
    embedder,
    threshold,
    breakpointPercentile = 95,
    windowSentences = 2,
    maxTokens = 512,
    countTokens = estimateTokens,
    batchSize = 64,
    language,
    pages,
    signal,
  } = options;
  if (!(maxTokens > 0) || !(batchSize > 0) || !(windowSentences >= 1)) {
    throw new PolyhopError(
      'INVALID_REQUEST',
      'semanticChunk: maxTokens, batchSize and windowSentences must be positive',
    );
  }
  if (!(breakpointPercentile >= 0 && breakpointPercentile <= 100))
    throw new PolyhopError(
      'INVALID_REQUEST',
      `semanticChunk: breakpointPercentile must be in 0..100 (got ${breakpointPercentile})`,
    );
  throwIfAborted(signal);
  const sentences: (Span & { tokens: number })[] = [];
  for (const s of splitSentences(text, language)) {
    const tokens = countTokens(text.slice(s.start, s.end));
    if (tokens <= maxTokens) sentences.push({ ...s, tokens });
    else sentences.push(...splitSpanByTokens(text, s, maxTokens, countTokens));
  }
  if (sentences.length === 0) return [];

  const n = sentences.length;
  const w = windowSentences;
  const slice = (from: number, to: number) =>
    text.slice(sentences[Math.max(0, from)]!.start, sentences[Math.min(n - 1, to)]!.end);
  // Gap i (after sentence i) compares the window ending at i, E_i = [i-w+1, i], with the window
  // starting at i+1, which is E_{i+w} while that fits. Windows are embedded in order E_0..E_{n-1},
  // then one clamped window [g+1, n-1] for each late gap g ≥ n-w that no E covers.
  const firstLateGap = Math.max(0, n - w);
  const windowCount = n + Math.max(0, n - 1 - firstLateGap);
  const windowText = (k: number) => (k < n ? slice(k - w + 1, k) : slice(firstLateGap + (k - n) + 1, n - 1));
  const similarity = new Float32Array(Math.max(0, n - 1));
  const left = new Map<number, Float32Array>(); // E_i still needed as a left window
  for (let from = 0; from < windowCount && n > 1; from += batchSize) {
    throwIfAborted(signal);
    const to = Math.min(windowCount, from + batchSize);
    const batch: string[] = [];
    for (let k = from; k < to; k++) batch.push(windowText(k));
    const vectors = await embedder.embed(batch, { purpose: 'passage', ...(signal ? { signal } : {}) });
    for (let k = from; k < to; k++) {
      const v = vectors[k - from]!;
      const gap = k < n ? k - w : firstLateGap + (k - n);
      if (gap >= 0 && gap < n - 1) {
        similarity[gap] = cosine(left.get(gap)!, v);
        if (k < n) left.delete(gap);
      }
      if (k < n - 1) left.set(k, v);
    }
  }

  // Distance above the percentile ⇔ similarity below the complementary quantile of similarities.
  const cut = threshold ?? quantile(Float32Array.from(similarity).sort(), 1 - breakpointPercentile / 100);
  const chunks: NewChunk[] = [];
  let start = 0;
  let tokens = sentences[0]!.tokens;
  for (let i = 1; i <= sentences.length; i++) {
    const next = sentences[i];
    if (next && similarity[i - 1]! >= cut && tokens + next.tokens <= maxTokens) {
      tokens += next.tokens;
      continue;
    }
    chunks.push(
      toChunk(text, { start: sentences[start]!.start, end: sentences[i - 1]!.end }, chunks.length, pages, language),
    );
    if (next) {
      start = i;
      tokens = next.tokens;
    }
  }
  return chunks;
}
