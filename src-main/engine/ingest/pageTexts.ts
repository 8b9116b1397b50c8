import type { LoadedText } from './types.js';

/** What the paged loaders (PDF, multi-page TIFF) put between one page's text and the next's. */
export const PAGE_SEPARATOR = '\n\n';

/** One page of a loaded text: its number and its span `[startOffset, endOffset)`, which `text` is. */
export interface PageText {
  /** 1-based page number. */
  page: number;
  startOffset: number;
  endOffset: number;
  text: string;
}

/**
 * The pages of a loaded text, each without the separator that follows it; none for a text
 * without pages. The one place a page's end is decided: the index keeps these, and citations are
 * shown from what it kept (or, for a document indexed before, from this on the text read again).
 */
export function pageTexts(loaded: Pick<LoadedText, 'text' | 'pages'>): PageText[] {
  const pages = loaded.pages ?? [];
  return pages.map((p, i) => {
    const next = pages[i + 1];
    const endOffset = next ? Math.max(p.startOffset, next.startOffset - PAGE_SEPARATOR.length) : loaded.text.length;
    return { page: p.page, startOffset: p.startOffset, endOffset, text: loaded.text.slice(p.startOffset, endOffset) };
  });
}
