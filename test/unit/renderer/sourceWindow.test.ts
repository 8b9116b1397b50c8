import { describe, expect, it } from 'vitest';
import type { DocumentSource } from '../../../src-main/engine/api/contract.js';
import { sourceWindow } from '../../../src-renderer/src/components/SourceText.js';

/** What the citation dialog shows of a document: a PDF's cited page, else all of it. */
const PAGE_1 = 'Ithaca is an island in the Ionian Sea.\n';
const PAGE_2 = 'Penelope waited twenty years.\n';
const PAGE_3 = 'The suitors were many.';
const pdf = {
  document: {} as DocumentSource['document'],
  text: PAGE_1 + PAGE_2 + PAGE_3,
  pages: [
    { page: 1, startOffset: 0 },
    { page: 2, startOffset: PAGE_1.length },
    { page: 3, startOffset: PAGE_1.length + PAGE_2.length },
  ],
} satisfies DocumentSource;

describe('sourceWindow', () => {
  it('is the page the passage starts on, for a PDF', () => {
    const offset = pdf.text.indexOf('twenty');
    const w = sourceWindow(pdf, offset);
    expect(w).toEqual({ start: PAGE_1.length, end: PAGE_1.length + PAGE_2.length, page: 2 });
    expect(pdf.text.slice(w.start, w.end)).toBe(PAGE_2);
    expect(sourceWindow(pdf, 0).page).toBe(1);
    expect(sourceWindow(pdf, pdf.text.length - 1)).toMatchObject({ page: 3, end: pdf.text.length });
  });

  it('is the whole text for a document without pages', () => {
    expect(sourceWindow({ ...pdf, pages: null }, 45)).toEqual({ start: 0, end: pdf.text.length, page: null });
  });
});
