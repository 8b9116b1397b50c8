import type { NewChunk } from '../../kb/types.js';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { tokenPieces } from '../tokens.js';
import type { PageStart, TokenCounter } from '../types.js';
import { toChunk } from './chunkRecord.js';

export interface FixedSizeChunkOptions {
  /** Tokens per chunk. Default: 1,000 (the MDER-DR paper's vector baseline). */
  chunkTokens?: number;
  /** Tokens shared by consecutive chunks. Default: 200. */
  overlapTokens?: number;
  /** Default: {@link estimateTokens} per piece. */
  countTokens?: TokenCounter;
  /** Document language, used for chunks too short to detect. */
  language?: string;
  pages?: readonly PageStart[];
  signal?: AbortSignal;
}

/**
 * Fixed-size token windows with overlap, cut between words (or CJK/Thai characters), for the
 * vector-RAG baseline. One pass over the text; memory is one window of pieces.
 */
export function fixedSizeChunk(text: string, options: FixedSizeChunkOptions = {}): NewChunk[] {
  const { chunkTokens = 1000, overlapTokens = 200, countTokens, language, pages, signal } = options;
  if (!(chunkTokens > 0) || !(overlapTokens >= 0) || overlapTokens >= chunkTokens) {
    throw new PolyhopError(
      'INVALID_REQUEST',
      `fixedSizeChunk: need 0 ≤ overlapTokens (${overlapTokens}) < chunkTokens (${chunkTokens})`,
    );
  }
  const chunks: NewChunk[] = [];
  // Window of pieces: parallel arrays from `head`, compacted after each chunk.
  let starts: number[] = [];
  let ends: number[] = [];
  let tokens: number[] = [];
  let head = 0;
  let sum = 0;
  let fresh = false; // pieces added since the last emitted chunk
  let n = 0;
  const emit = () => {
    chunks.push(toChunk(text, { start: starts[head]!, end: ends[ends.length - 1]! }, chunks.length, pages, language));
    fresh = false;
    while (head < starts.length && sum > overlapTokens) sum -= tokens[head++]!;
    starts = starts.slice(head);
    ends = ends.slice(head);
    tokens = tokens.slice(head);
    head = 0;
  };
  for (const piece of tokenPieces(text, { start: 0, end: text.length }, countTokens)) {
    if ((++n & 0xffff) === 0) throwIfAborted(signal);
    if (sum + piece.tokens > chunkTokens && starts.length > head && fresh) emit();
    starts.push(piece.start);
    ends.push(piece.end);
    tokens.push(piece.tokens);
    sum += piece.tokens;
    fresh = true;
  }
  if (fresh) emit();
  return chunks;
}
