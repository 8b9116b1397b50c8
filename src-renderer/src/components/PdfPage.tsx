import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DocumentPageText } from '../../api/index.js';
import { drawCitedPage, type DrawnPage } from '../lib/pdfPage.js';
import { Loading } from './StateViews.js';

/** The page's width on screen, in CSS pixels (the dialog's width less its padding). */
const PAGE_WIDTH = 820;

/**
 * A PDF citation shown on its page: the page drawn by PDF.js with its text layer and the passage
 * highlighted on it, scrolled into view. Calls `onFailed` with the reason when the page cannot be
 * drawn with its highlight (the dialog then shows the page's text).
 */
export function PdfPage({
  kb,
  source,
  onFailed,
}: {
  kb: string;
  source: DocumentPageText;
  onFailed: (reason: string) => void;
}) {
  const { t } = useTranslation();
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState<DrawnPage | null>(null);
  useEffect(() => {
    let cancelled = false;
    setDrawn(null);
    drawCitedPage({
      kb,
      source,
      canvas: canvas.current!,
      layer: layer.current!,
      width: Math.min(PAGE_WIDTH, Math.max(200, (frame.current?.clientWidth || PAGE_WIDTH) - 2)),
      isCancelled: () => cancelled,
    }).then(
      (page) => {
        if (cancelled || !page) return;
        setDrawn(page);
        page.marks[0]?.scrollIntoView?.({ block: 'center' });
      },
      (error: unknown) => !cancelled && onFailed(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      cancelled = true;
    };
  }, [kb, source, onFailed]);
  return (
    <>
      {drawn ? (
        <p className="muted small" data-testid="source-page">
          {t('ask.page', { page: drawn.page })}
          {drawn.continues && ` · ${t('ask.passageContinues')}`}
        </p>
      ) : (
        <Loading />
      )}
      <div ref={frame}>
        <div className="pdf-page" data-testid="pdf-page" data-drawn={drawn ? 'true' : 'false'}>
          <canvas ref={canvas} data-testid="pdf-canvas" />
          <div ref={layer} className="textLayer" data-testid="pdf-text-layer" />
        </div>
      </div>
    </>
  );
}
