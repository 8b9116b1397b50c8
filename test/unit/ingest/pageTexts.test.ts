import { describe, expect, it } from 'vitest';
import { PAGE_SEPARATOR, pageTexts } from '../../../src-main/engine/ingest/pageTexts.js';

/** The one rule for where a page's text ends: before the separator the paged loaders put after it. */
const PAGES = ['Ithaca is an island in the Ionian Sea.\n', '', 'Penelope waited twenty years.\nThe suitors were many.'];
const text = PAGES.join(PAGE_SEPARATOR);
const starts = PAGES.map((_, i) => ({
  page: i + 1,
  startOffset: PAGES.slice(0, i).reduce((n, p) => n + p.length + PAGE_SEPARATOR.length, 0),
}));

describe('pageTexts', () => {
  it("gives each page's text and span, separators left out, an empty page kept in its place", () => {
    const pages = pageTexts({ text, pages: starts });
    expect(pages.map((p) => p.text)).toEqual(PAGES);
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    for (const p of pages) expect(text.slice(p.startOffset, p.endOffset)).toBe(p.text);
    expect(pages.at(-1)!.endOffset).toBe(text.length);
  });

  it('gives no pages for a text without them', () => {
    expect(pageTexts({ text })).toEqual([]);
    expect(pageTexts({ text, pages: [] })).toEqual([]);
  });
});
