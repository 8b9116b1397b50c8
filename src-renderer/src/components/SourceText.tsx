import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { Citation, DocumentSource } from '../../api/index.js';

/** The part of the document to show: a PDF's cited page, else the whole text. */
export function sourceWindow(
  source: DocumentSource,
  offset: number,
): { start: number; end: number; page: number | null } {
  if (!source.pages?.length) return { start: 0, end: source.text.length, page: null };
  const index = Math.max(
    0,
    source.pages.findLastIndex((p) => p.startOffset <= offset),
  );
  const page = source.pages[index]!;
  return { start: page.startOffset, end: source.pages[index + 1]?.startOffset ?? source.text.length, page: page.page };
}

/**
 * The document's own text with the cited span `[startOffset, endOffset)` marked and scrolled into
 * view; for a PDF, the text of the page the passage starts on.
 */
export function SourceText({ source, citation }: { source: DocumentSource; citation: Citation }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLElement>(null);
  const { start, end, page } = sourceWindow(source, citation.startOffset);
  const from = Math.min(Math.max(citation.startOffset, start), end);
  const to = Math.min(Math.max(citation.endOffset, from), end);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'center' });
  }, [source, from, to]);
  return (
    <>
      {page !== null && (
        <p className="muted small" data-testid="source-page">
          {t('ask.page', { page })}
        </p>
      )}
      <div className="passage source-text" data-testid="source-text" data-start={start}>
        {source.text.slice(start, from)}
        <mark ref={ref} data-testid="passage-highlight" data-start={from} data-end={to}>
          {source.text.slice(from, to)}
        </mark>
        {source.text.slice(to, end)}
      </div>
    </>
  );
}
