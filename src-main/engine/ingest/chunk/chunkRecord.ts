import type { NewChunk } from '../../kb/types.js';
import { detectLanguage } from '../detectLanguage.js';
import type { PageStart, Span } from '../types.js';

/** 1-based page holding `offset` (last page starting at or before it), or null without pages. */
export function pageAt(pages: readonly PageStart[] | undefined, offset: number): number | null {
  if (!pages || pages.length === 0) return null;
  let lo = 0;
  let hi = pages.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (pages[mid]!.startOffset <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? pages[0]!.page : pages[found]!.page;
}

/**
 * A chunk whose text is exactly `text.slice(start, end)`, with its page and language (detected
 * on the chunk; the document's language where the chunk is too short to tell).
 */
export function toChunk(
  text: string,
  span: Span,
  ord: number,
  pages: readonly PageStart[] | undefined,
  documentLanguage: string | undefined,
): NewChunk {
  const chunkText = text.slice(span.start, span.end);
  // A 1,000-character sample per chunk: tinyld costs ~0.3 ms per 1,000 characters, and chunks
  // of one document rarely switch language mid-chunk.
  const detected = detectLanguage(chunkText, { sampleChars: 1_000 });
  const language =
    detected !== 'und' ? detected : documentLanguage && documentLanguage !== 'und' ? documentLanguage : null;
  return {
    ord,
    text: chunkText,
    language,
    startOffset: span.start,
    endOffset: span.end,
    page: pageAt(pages, span.start),
  };
}
