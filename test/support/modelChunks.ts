import { decodeGenerator, encode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * `text` in the pieces a model streams it in: a few tokens (o200k_base) at a time, each piece
 * whole characters as a detokenizer emits them. The pieces join back to `text`.
 */
export function modelChunks(text: string, tokensPerChunk = 3): string[] {
  const chunks: string[] = [];
  let piece = '';
  let tokens = 0;
  for (const decoded of decodeGenerator(encode(text))) {
    piece += decoded;
    if (++tokens % tokensPerChunk === 0 && piece) {
      chunks.push(piece);
      piece = '';
    }
  }
  if (piece) chunks.push(piece);
  return chunks;
}
