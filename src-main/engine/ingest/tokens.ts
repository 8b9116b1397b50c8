import type { Span, TokenCounter } from './types.js';

/**
 * Scripts written without spaces between words. Each character is one piece and counts as one
 * token: BPE vocabularies give CJK about 1–1.5 tokens per character and Thai about 1, so this
 * errs on the side of smaller chunks.
 */
const NO_SPACE =
  String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}` +
  String.raw`\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}`;

/** Max characters of one letter run per piece, so a run without spaces never exceeds a chunk. */
const MAX_RUN = 64;

/**
 * Pieces: one no-space-script character, a letter/digit run (≤ 64 code points), or one other
 * visible character. Whitespace is never part of a piece.
 */
const PIECE = new RegExp(String.raw`[${NO_SPACE}]|([[\p{L}\p{M}\p{N}]--[${NO_SPACE}]]{1,${MAX_RUN}})|[^\s]`, 'gv');

/** Group 1 is a letter run: ~4 characters per token (OpenAI's rule of thumb); anything else is 1. */
function estimateMatch(m: RegExpExecArray | RegExpMatchArray): number {
  return m[1] === undefined ? 1 : Math.ceil(m[1].length / 4);
}

/**
 * A fast token estimate (single pass, no tokenizer): letter runs cost ⌈length/4⌉, each CJK/Thai
 * character and each punctuation mark 1, whitespace 0. Used as the default {@link TokenCounter}.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) n += estimateMatch(m);
  return n;
}

export interface TokenPiece extends Span {
  tokens: number;
}

/**
 * The text's pieces in `[start, end)` with their token counts, in order; chunkers cut only
 * between pieces. `countTokens` is called per piece (real tokenizers are close to additive
 * over words); omitted, the estimate is used.
 */
export function* tokenPieces(text: string, span: Span, countTokens?: TokenCounter): Generator<TokenPiece> {
  const re = new RegExp(PIECE);
  re.lastIndex = span.start;
  for (let m = re.exec(text); m && m.index < span.end; m = re.exec(text)) {
    const end = Math.min(m.index + m[0].length, span.end);
    if (end < m.index + m[0].length) {
      // A piece cut by the span's end is re-measured on its visible part.
      const piece = text.slice(m.index, end);
      yield { start: m.index, end, tokens: countTokens ? countTokens(piece) : estimateTokens(piece) };
    } else yield { start: m.index, end, tokens: countTokens ? countTokens(m[0]) : estimateMatch(m) };
  }
}

/** Splits `span` into consecutive sub-spans of at most `maxTokens` tokens each (a single over-long piece stays whole). */
export function splitSpanByTokens(
  text: string,
  span: Span,
  maxTokens: number,
  countTokens?: TokenCounter,
): (Span & { tokens: number })[] {
  const out: (Span & { tokens: number })[] = [];
  let current: (Span & { tokens: number }) | undefined;
  for (const piece of tokenPieces(text, span, countTokens)) {
    if (current && current.tokens + piece.tokens > maxTokens) {
      out.push(current);
      current = undefined;
    }
    if (current) {
      current.end = piece.end;
      current.tokens += piece.tokens;
    } else current = { ...piece };
  }
  if (current) out.push(current);
  return out;
}
