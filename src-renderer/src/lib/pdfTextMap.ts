/** The fields of a PDF.js text item read here (marked-content items have no `str`). */
export interface PdfTextItem {
  str?: string;
  hasEOL?: boolean;
}

/** A span of a page's text drawn by one text-layer element (the `div`-th item that has a string). */
export interface ItemSpan {
  div: number;
  start: number;
  end: number;
}

/**
 * The page's text as the engine's PDF loader builds it (the items' strings, a newline after each
 * that ends a line), and where each item's string lies in it. PDF.js's text layer makes one
 * element per item with a string, in this order, so `div` indexes its `textDivs`.
 */
export function pageText(items: readonly PdfTextItem[]): { text: string; spans: ItemSpan[] } {
  let text = '';
  const spans: ItemSpan[] = [];
  for (const item of items) {
    if (item.str === undefined) continue;
    spans.push({ div: spans.length, start: text.length, end: text.length + item.str.length });
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return { text, spans };
}

/** The parts of items' strings that `[from, to)` of the page's text covers, as offsets into each item's own string. */
export function coveredParts(spans: readonly ItemSpan[], from: number, to: number): ItemSpan[] {
  const parts: ItemSpan[] = [];
  for (const s of spans) {
    const start = Math.max(from, s.start);
    const end = Math.min(to, s.end);
    if (end > start) parts.push({ div: s.div, start: start - s.start, end: end - s.start });
  }
  return parts;
}
