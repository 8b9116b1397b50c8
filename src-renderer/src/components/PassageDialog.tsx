import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChunkView, Citation } from '../../api/index.js';
import { useApi } from '../lib/useApi.js';
import { Dialog } from './Dialog.js';
import { OpenInViewer } from './OpenInViewer.js';
import { PdfPage } from './PdfPage.js';
import { SourceText } from './SourceText.js';
import { ErrorView, Loading } from './StateViews.js';

/**
 * The chunk's text with the cited span marked. Offsets are into the document's text; a span
 * that covers the whole chunk (or falls outside it) marks the whole chunk.
 */
export function HighlightedChunk({ chunk, start, end }: { chunk: ChunkView; start: number; end: number }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'center' });
  }, [chunk.id, start, end]);
  const from = Math.max(0, Math.min(chunk.text.length, start - chunk.startOffset));
  const to = Math.max(from, Math.min(chunk.text.length, end - chunk.startOffset));
  const [a, b] = to > from ? [from, to] : [0, chunk.text.length];
  return (
    <p className="passage">
      {chunk.text.slice(0, a)}
      <mark ref={ref} data-testid="passage-highlight">
        {chunk.text.slice(a, b)}
      </mark>
      {chunk.text.slice(b)}
    </p>
  );
}

/** Opens a citation at its source: the document's text (a PDF's page) with the passage marked, else the chunk alone. */
export function PassageDialog({ kb, citation, onClose }: { kb: string; citation: Citation; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useApi('docs:get', { kb, id: citation.documentId });
  const chunk = detail.data?.chunks.find((c) => c.id === citation.chunkId);
  // The cited page (a document without pages: its text), only while its chunk is still there
  // (offsets of a re-indexed document may differ).
  const source = useApi(
    'docs:page',
    chunk ? { kb, id: citation.documentId, startOffset: citation.startOffset, endOffset: citation.endOffset } : null,
  );
  // A PDF file's page is drawn; when it cannot be (the page was OCR'd…), its text is shown with the reason.
  const [pageFailed, setPageFailed] = useState<string | null>(null);
  const onPageFailed = useCallback((reason: string) => setPageFailed(reason), []);
  const isPdf = source.data?.document.mime === 'application/pdf';
  return (
    <Dialog title={citation.documentTitle} onClose={onClose} testId="passage-dialog" wide>
      {detail.status === 'loading' && <Loading />}
      {detail.status === 'error' && <ErrorView error={detail.error} onRetry={detail.reload} />}
      {detail.data && (
        <>
          <p className="muted">
            {detail.data.document.path}
            {citation.page !== null && ` · ${t('ask.page', { page: citation.page })}`}
            {` · ${t('ask.offsets', { start: citation.startOffset, end: citation.endOffset })}`}
          </p>
          <OpenInViewer kb={kb} documentId={citation.documentId} />
          {source.data && isPdf && pageFailed === null ? (
            <PdfPage kb={kb} source={source.data} onFailed={onPageFailed} />
          ) : source.data ? (
            <>
              {pageFailed !== null && (
                <p className="muted small" data-testid="pdf-page-unavailable">
                  {t('ask.pageNotDrawn', { reason: pageFailed })}
                </p>
              )}
              <SourceText source={source.data} />
            </>
          ) : source.status === 'error' || !chunk ? (
            <>
              {source.status === 'error' && (
                <p className="muted small" data-testid="source-unavailable">
                  {t('threads.sourceUnavailable', { reason: source.error.message })}
                </p>
              )}
              {chunk ? (
                <HighlightedChunk chunk={chunk} start={citation.startOffset} end={citation.endOffset} />
              ) : (
                <p data-testid="passage-missing">{t('ask.chunkGone')}</p>
              )}
            </>
          ) : (
            <Loading />
          )}
          {chunk?.englishText && chunk.englishText !== chunk.text && (
            <details>
              <summary>{t('corpus.englishText')}</summary>
              <p>{chunk.englishText}</p>
            </details>
          )}
        </>
      )}
    </Dialog>
  );
}
