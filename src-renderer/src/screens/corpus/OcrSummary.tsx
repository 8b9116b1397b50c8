import { useTranslation } from 'react-i18next';
import { OCR_LOW_CONFIDENCE, type OcrRecord } from '../../../api/index.js';

const REASON_KEYS: Record<OcrRecord['pages'][number]['reason'], string> = {
  'no text layer': 'corpus.ocr.reason.noTextLayer',
  'unreadable text': 'corpus.ocr.reason.unreadableText',
  image: 'corpus.ocr.reason.image',
};

/** A document's OCR record on its detail: how many pages OCR read, in which languages, how sure it was, each page with its confidence. */
export function OcrSummary({ ocr }: { ocr: OcrRecord }) {
  const { t } = useTranslation();
  const { pages } = ocr;
  if (pages.length === 0) return null;
  const mean = Math.round(pages.reduce((sum, p) => sum + p.confidence, 0) / pages.length);
  const lowest = pages.reduce((low, p) => (p.confidence < low.confidence ? p : low));
  const low = pages.filter((p) => p.confidence < OCR_LOW_CONFIDENCE);
  return (
    <section className="doc-ocr" data-testid="doc-ocr" aria-label={t('corpus.ocr.title')}>
      <p data-testid="doc-ocr-summary">
        {t('corpus.ocr.summary', { count: pages.length, languages: ocr.languages.join('+'), mean })}
        {pages.length > 1 && t('corpus.ocr.lowest', { page: lowest.page, confidence: lowest.confidence })}
      </p>
      {low.length > 0 && (
        <p className="warning-text" role="note" data-testid="doc-ocr-low">
          {t('corpus.ocr.low', { count: low.length, pages: low.map((p) => p.page).join(', ') })}
        </p>
      )}
      <details>
        <summary>{t('corpus.ocr.pages')}</summary>
        <ul className="small">
          {pages.map((p) => (
            <li
              key={p.page}
              className={p.confidence < OCR_LOW_CONFIDENCE ? 'warning-text' : undefined}
              data-testid={`doc-ocr-page-${p.page}`}
              data-low={p.confidence < OCR_LOW_CONFIDENCE ? 'true' : undefined}
            >
              {t('corpus.ocr.page', { page: p.page, confidence: p.confidence, reason: t(REASON_KEYS[p.reason]) })}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
