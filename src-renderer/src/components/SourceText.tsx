import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { DocumentPageText } from '../../api/index.js';

/**
 * The cited page's text (a document without pages: all of it) with the passage marked and
 * scrolled into view, at the offsets the engine gave on the page.
 */
export function SourceText({ source }: { source: DocumentPageText }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLElement>(null);
  const { start: from, end: to } = source.passage;
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'center' });
  }, [source, from, to]);
  return (
    <>
      {source.page !== null && (
        <p className="muted small" data-testid="source-page">
          {t('ask.page', { page: source.page })}
        </p>
      )}
      <div className="passage source-text" data-testid="source-text" data-start={source.startOffset}>
        {source.text.slice(0, from)}
        <mark
          ref={ref}
          data-testid="passage-highlight"
          data-start={source.startOffset + from}
          data-end={source.startOffset + to}
        >
          {source.text.slice(from, to)}
        </mark>
        {source.text.slice(to)}
      </div>
    </>
  );
}
