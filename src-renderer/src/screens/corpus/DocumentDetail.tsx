import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/index.js';
import { ConfirmDialog } from '../../components/Dialog.js';
import { ErrorView, Loading } from '../../components/StateViews.js';
import { formatBytes, formatNumber } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { TableScroll } from '../../components/TableScroll.js';
import { OcrSummary } from './OcrSummary.js';

const CHUNKS_SHOWN = 100;

/** One document: metadata, its error, chunks (text, summary, English text) and extracted triples. */
export function DocumentDetail({
  kb,
  id,
  onClose,
  onRemoved,
}: {
  kb: string;
  id: number;
  onClose: () => void;
  onRemoved: () => void;
}) {
  const { t } = useTranslation();
  const detail = useApi('docs:get', { kb, id });
  const [confirming, setConfirming] = useState(false);
  const [showAll, setShowAll] = useState(false);
  const announce = useApp((s) => s.announce);
  const reindex = useAction(async () => {
    const result = await api().call('docs:reindex', { kb, id });
    announce(t('corpus.reindexQueued', { title: detail.data?.document.title ?? id }));
    // The document comes back under a new id, pending; the next indexing run extracts it again.
    if (result.added.length > 0) onRemoved();
  });
  const remove = useAction(async () => {
    await api().call('docs:remove', { kb, id });
    setConfirming(false);
    announce(t('corpus.removed', { title: detail.data?.document.title ?? id }));
    onRemoved();
  });

  return (
    <section className="panel doc-detail" aria-labelledby="doc-detail-title" data-testid="doc-detail" data-doc-id={id}>
      <header className="row between">
        <h3 id="doc-detail-title">{detail.data?.document.title ?? t('corpus.document')}</h3>
        <button
          type="button"
          className="ghost"
          onClick={onClose}
          aria-label={t('common.close')}
          data-testid="doc-detail-close"
        >
          ×
        </button>
      </header>
      {detail.status === 'loading' && !detail.data && <Loading />}
      {detail.status === 'error' && <ErrorView error={detail.error} onRetry={detail.reload} />}
      {detail.data && (
        <>
          <dl className="meta">
            <dt>{t('corpus.path')}</dt>
            <dd className="break">{detail.data.document.path}</dd>
            <dt>{t('corpus.col.type')}</dt>
            <dd>{detail.data.document.mime}</dd>
            <dt>{t('corpus.col.language')}</dt>
            <dd>{detail.data.document.language ?? '—'}</dd>
            <dt>{t('corpus.col.size')}</dt>
            <dd>{formatBytes(detail.data.document.size)}</dd>
            <dt>{t('corpus.col.status')}</dt>
            <dd>{t(`docStatus.${detail.data.document.status}`)}</dd>
          </dl>
          {detail.data.document.error && (
            <p className="error-text" role="note" data-testid="doc-error">
              {detail.data.document.error}
            </p>
          )}
          {detail.data.ocr && <OcrSummary ocr={detail.data.ocr} />}
          <div className="row">
            <button
              type="button"
              onClick={() => void reindex.run()}
              disabled={reindex.pending}
              data-testid="doc-reindex"
            >
              {t('corpus.reindexDocument')}
            </button>
            <button type="button" className="danger" onClick={() => setConfirming(true)} data-testid="doc-remove">
              {t('corpus.removeDocument')}
            </button>
          </div>
          {remove.error && <ErrorView error={remove.error} compact />}
          {reindex.error && <ErrorView error={reindex.error} compact />}

          <h4>{t('corpus.chunks', { count: detail.data.chunks.length })}</h4>
          {detail.data.chunks.length === 0 && <p className="muted">{t('corpus.noChunks')}</p>}
          <ol className="chunks">
            {(showAll ? detail.data.chunks : detail.data.chunks.slice(0, CHUNKS_SHOWN)).map((c) => (
              <li key={c.id} className="chunk" data-testid={`chunk-${c.id}`}>
                <p className="muted small">
                  #{c.ord + 1}
                  {c.page !== null && ` · ${t('ask.page', { page: c.page })}`}
                  {c.language && ` · ${c.language}`} · {c.startOffset}–{c.endOffset}
                </p>
                <p className="chunk-text">{c.text}</p>
                {c.summary && (
                  <details>
                    <summary>{t('corpus.summary')}</summary>
                    <p>{c.summary}</p>
                  </details>
                )}
                {c.englishText && c.englishText !== c.text && (
                  <details>
                    <summary>{t('corpus.englishText')}</summary>
                    <p>{c.englishText}</p>
                  </details>
                )}
              </li>
            ))}
          </ol>
          {!showAll && detail.data.chunks.length > CHUNKS_SHOWN && (
            <button type="button" onClick={() => setShowAll(true)}>
              {t('common.showAll', { count: detail.data.chunks.length })}
            </button>
          )}

          <h4>{t('corpus.triples', { count: detail.data.triples.length })}</h4>
          {detail.data.triples.length === 0 ? (
            <p className="muted">{t('corpus.noTriples')}</p>
          ) : (
            <TableScroll>
              <table data-testid="doc-triples">
                <thead>
                  <tr>
                    <th scope="col">{t('graph.source')}</th>
                    <th scope="col">{t('graph.relation')}</th>
                    <th scope="col">{t('graph.target')}</th>
                    <th scope="col">{t('graph.description')}</th>
                  </tr>
                </thead>
                <tbody>
                  {detail.data.triples.map((tr) => (
                    <tr key={tr.id}>
                      <td>{tr.source}</td>
                      <td>{tr.relation}</td>
                      <td>{tr.target}</td>
                      <td>{tr.description ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
        </>
      )}
      {confirming && detail.data && (
        <ConfirmDialog
          title={t('corpus.removeDocument')}
          message={t('corpus.removeDocumentConfirm', {
            title: detail.data.document.title,
            chunks: formatNumber(detail.data.chunks.length),
            triples: formatNumber(detail.data.triples.length),
          })}
          confirmLabel={t('common.remove')}
          pending={remove.pending}
          onConfirm={() => void remove.run()}
          onCancel={() => setConfirming(false)}
        />
      )}
    </section>
  );
}
