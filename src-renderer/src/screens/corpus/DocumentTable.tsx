import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DocumentListRow, DocumentRow } from '../../../api/index.js';
import { formatBytes, formatDate, formatNumber } from '../../lib/format.js';
import { ErrorView, Empty, Loading } from '../../components/StateViews.js';
import { useDebouncedSearch } from '../../lib/useApi.js';
import { useDocumentPages, type DocSort } from './useDocumentPages.js';

const ROW_HEIGHT = 36;
const OVERSCAN = 10;

const COLUMNS: { key: DocSort; label: string; className: string }[] = [
  { key: 'title', label: 'corpus.col.title', className: 'c-title' },
  { key: 'mime', label: 'corpus.col.type', className: 'c-type' },
  { key: 'language', label: 'corpus.col.language', className: 'c-lang' },
  { key: 'size', label: 'corpus.col.size', className: 'c-num' },
  { key: 'chunkCount', label: 'corpus.col.chunks', className: 'c-num' },
  { key: 'tripleCount', label: 'corpus.col.triples', className: 'c-num' },
  { key: 'status', label: 'corpus.col.status', className: 'c-status' },
  { key: 'addedAt', label: 'corpus.col.added', className: 'c-date' },
];

/**
 * Virtualised document table: fixed-height rows, only the visible window is in the DOM and only
 * its pages are fetched. Sortable headers (aria-sort), a filter box, a row button opens details.
 * A file of several documents (a mail file's messages and attachments) is one row with its parts'
 * count; that opens its parts in the table, with a way back.
 */
export function DocumentTable({
  kb,
  selectedId,
  onOpen,
  refreshKey,
}: {
  kb: string;
  selectedId: number | null;
  onOpen: (row: DocumentRow) => void;
  refreshKey: number;
}) {
  const { t } = useTranslation();
  const [sort, setSort] = useState<DocSort>('addedAt');
  const [descending, setDescending] = useState(true);
  const { input: filterInput, setInput: setFilterInput, search: filter } = useDebouncedSearch();
  const [container, setContainer] = useState<DocumentListRow | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(480);
  const scroller = useRef<HTMLDivElement>(null);
  const { total, error, rowAt, ensure, refresh } = useDocumentPages(
    kb,
    sort,
    descending,
    filter,
    container?.id ?? null,
  );
  // The scroller exists once the first page has come (it is then observed once).
  const loaded = total !== null;

  useEffect(() => {
    if (refreshKey) refresh();
  }, [refreshKey, refresh]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewport(el.clientHeight || 480));
    observer.observe(el);
    return () => observer.disconnect();
  }, [loaded]);

  useEffect(() => setContainer(null), [kb]);

  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
    setScrollTop(0);
  }, [kb, sort, descending, filter, container]);

  const count = total ?? 0;
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    if (count) ensure(first, last);
  }, [first, last, count, ensure]);

  const onSort = (key: DocSort) => {
    if (key === sort) setDescending((d) => !d);
    else {
      setSort(key);
      setDescending(false);
    }
  };

  const rows = [];
  for (let i = first; i < last; i++) {
    const row = rowAt(i);
    rows.push(
      <div
        key={i}
        role="row"
        aria-rowindex={i + 2}
        className={row && row.id === selectedId ? 'doc-row selected' : 'doc-row'}
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
        data-testid={row ? `docs-row-${row.id}` : undefined}
        data-status={row?.status}
      >
        {row ? (
          <>
            <div role="cell" className="c-title">
              <button
                type="button"
                className="link"
                onClick={() => onOpen(row)}
                title={row.path}
                data-testid="docs-open"
              >
                {row.title || row.path}
              </button>
              {row.partCount > 0 && (
                <button type="button" className="link small" onClick={() => setContainer(row)} data-testid="docs-parts">
                  {t('corpus.parts', { count: row.partCount })}
                </button>
              )}
            </div>
            <div role="cell" className="c-type">
              {row.mime}
            </div>
            <div role="cell" className="c-lang">
              {row.language ?? '—'}
            </div>
            <div role="cell" className="c-num">
              {formatBytes(row.size)}
            </div>
            <div role="cell" className="c-num">
              {formatNumber(row.chunkCount)}
            </div>
            <div role="cell" className="c-num">
              {formatNumber(row.tripleCount)}
            </div>
            <div role="cell" className="c-status">
              <span className={`badge status-${row.status}`} title={row.error ?? undefined}>
                {t(`docStatus.${row.status}`)}
              </span>
              {row.error && <span className="visually-hidden">{row.error}</span>}
            </div>
            <div role="cell" className="c-date">
              {formatDate(row.addedAt)}
            </div>
          </>
        ) : (
          <div role="cell" className="c-title muted">
            …
          </div>
        )}
      </div>,
    );
  }

  return (
    <section className="doc-table-section" aria-labelledby="docs-heading">
      <div className="row between wrap">
        <h3 id="docs-heading">
          {t('corpus.documents')}{' '}
          {total !== null && (
            <span className="muted" data-testid="docs-total">
              ({formatNumber(total)})
            </span>
          )}
        </h3>
        <label className="inline">
          <span>{t('corpus.filter')}</span>
          <input
            type="search"
            value={filterInput}
            onChange={(e) => setFilterInput(e.target.value)}
            placeholder={t('corpus.filterPlaceholder')}
            data-testid="docs-filter"
          />
        </label>
      </div>
      {container && (
        <div className="row wrap" data-testid="docs-container">
          <button type="button" className="link" onClick={() => setContainer(null)} data-testid="docs-back">
            {t('corpus.allDocuments')}
          </button>
          <span className="muted">{t('corpus.partsOf', { title: container.title || container.path })}</span>
        </div>
      )}
      {error && <ErrorView error={error} onRetry={refresh} compact />}
      {total === null && !error && <Loading />}
      {total === 0 &&
        (filter ? (
          <Empty title={t('corpus.noMatch')} hint={t('corpus.noMatchHint')} />
        ) : (
          <Empty title={t('corpus.noDocuments')} hint={t('corpus.noDocumentsHint')} testId="docs-empty" />
        ))}
      {total !== null && total > 0 && (
        <div
          role="table"
          className="doc-table"
          aria-label={t('corpus.documents')}
          aria-rowcount={total + 1}
          data-testid="docs-table"
        >
          <div role="rowgroup">
            <div role="row" aria-rowindex={1} className="doc-row head">
              {COLUMNS.map((c) => (
                <div
                  key={c.key}
                  role="columnheader"
                  className={c.className}
                  aria-sort={c.key === sort ? (descending ? 'descending' : 'ascending') : 'none'}
                >
                  <button
                    type="button"
                    className="sort"
                    onClick={() => onSort(c.key)}
                    data-testid={`docs-sort-${c.key}`}
                  >
                    {t(c.label)}
                    <span aria-hidden="true">{c.key === sort ? (descending ? ' ▼' : ' ▲') : ''}</span>
                  </button>
                </div>
              ))}
            </div>
          </div>
          <div
            role="rowgroup"
            ref={scroller}
            className="doc-scroll"
            tabIndex={0}
            aria-label={t('corpus.documentRows')}
            onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
          >
            <div className="doc-spacer" style={{ height: count * ROW_HEIGHT }}>
              {rows}
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
