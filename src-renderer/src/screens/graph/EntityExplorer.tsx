import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Citation, TripleView } from '../../../api/index.js';
import { PassageDialog } from '../../components/PassageDialog.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import { useApi } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { TableScroll } from '../../components/TableScroll.js';
import { drawnEdges } from './graphShape.js';

const SigmaGraph = lazy(() => import('./SigmaGraph.js'));

function TripleTable({
  triples,
  direction,
  onEntity,
  testId,
}: {
  triples: TripleView[];
  direction: 'in' | 'out';
  onEntity: (id: number) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  if (triples.length === 0) return <p className="muted">{t('graph.noTriples')}</p>;
  return (
    <TableScroll>
      <table data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">{direction === 'out' ? t('graph.relation') : t('graph.source')}</th>
            <th scope="col">{direction === 'out' ? t('graph.target') : t('graph.relation')}</th>
            <th scope="col">{t('graph.description')}</th>
          </tr>
        </thead>
        <tbody>
          {triples.map((tr) => {
            const other =
              direction === 'out' ? { id: tr.targetId, name: tr.target } : { id: tr.sourceId, name: tr.source };
            const link = (
              <button type="button" className="link" onClick={() => onEntity(other.id)}>
                {other.name}
              </button>
            );
            return (
              <tr key={tr.id}>
                <td>{direction === 'out' ? tr.relation : link}</td>
                <td>{direction === 'out' ? link : tr.relation}</td>
                <td>{tr.description ?? ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

function Neighbourhood({
  kb,
  id,
  name,
  onEntity,
}: {
  kb: string;
  id: number;
  name: string;
  onEntity: (id: number) => void;
}) {
  const { t } = useTranslation();
  const [hops, setHops] = useState(1);
  const [unavailable, setUnavailable] = useState<string | null>(null);
  const view = useApi('graph:neighbourhood', { kb, id, hops, limit: 5000 });
  const onUnavailable = useCallback((reason: string) => setUnavailable(reason), []);
  const edges = useMemo(() => (view.data ? drawnEdges(view.data) : []), [view.data]);
  return (
    <section className="panel" aria-labelledby="nb-heading" data-testid="graph-neighbourhood">
      <div className="row between wrap">
        <h3 id="nb-heading">{t('graph.neighbourhood')}</h3>
        <label className="inline">
          <span>{t('graph.hops')}</span>
          <select value={hops} onChange={(e) => setHops(Number(e.target.value))} data-testid="graph-hops">
            {[1, 2, 3].map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </label>
      </div>
      {view.status === 'loading' && <Loading />}
      {view.status === 'error' && <ErrorView error={view.error} onRetry={view.reload} compact />}
      {view.status === 'ready' && view.data && (
        <>
          <p className="muted small" data-testid="graph-counts">
            {t('graph.counts', {
              nodes: formatNumber(view.data.nodes.length),
              edges: formatNumber(view.data.edges.length),
            })}
            {view.data.truncated && ` ${t('graph.truncated')}`}
            {edges.length < view.data.edges.length &&
              ` ${t('graph.treeEdges', { drawn: formatNumber(edges.length), edges: formatNumber(view.data.edges.length) })}`}
          </p>
          {unavailable ? (
            <p className="muted">{t('graph.noWebgl', { reason: unavailable })}</p>
          ) : (
            <Suspense fallback={<Loading />}>
              <SigmaGraph
                view={view.data}
                edges={edges}
                centerId={id}
                onSelect={onEntity}
                label={t('graph.canvasLabel', { name, nodes: view.data.nodes.length })}
                onUnavailable={onUnavailable}
              />
            </Suspense>
          )}
          <details>
            <summary>{t('graph.nodeList')}</summary>
            <ul className="node-list">
              {view.data.nodes.slice(0, 500).map((n) => (
                <li key={n.id}>
                  <button
                    type="button"
                    className="link"
                    onClick={() => onEntity(n.id)}
                    data-testid={`graph-node-${n.id}`}
                  >
                    {n.name}
                  </button>{' '}
                  <span className="muted small">
                    {n.type} · {t('graph.hop', { hop: n.hop })}
                  </span>
                </li>
              ))}
            </ul>
          </details>
        </>
      )}
    </section>
  );
}

function EntityCardView({ kb, id, onEntity }: { kb: string; id: number; onEntity: (id: number) => void }) {
  const { t } = useTranslation();
  const card = useApi('graph:entity', { kb, id });
  const [citation, setCitation] = useState<Citation | null>(null);
  const loadedName = card.data?.id === id ? card.data.name : null;
  useEffect(() => {
    if (loadedName !== null && useApp.getState().openEntity?.name !== loadedName)
      useApp.getState().setOpenEntity({ id, name: loadedName });
  }, [id, loadedName]);
  if (card.status === 'error') return <ErrorView error={card.error} onRetry={card.reload} />;
  if (!card.data || card.data.id !== id) return <Loading />;
  const e = card.data;
  return (
    <>
      <article
        className="panel entity-card"
        data-testid="entity-card"
        data-entity-id={e.id}
        aria-labelledby="entity-name"
      >
        <h3 id="entity-name" data-testid="entity-name">
          {e.name} <span className="badge">{e.type}</span>
        </h3>
        {e.summary ? <p data-testid="entity-summary">{e.summary}</p> : <p className="muted">{t('graph.noSummary')}</p>}
        {e.aliases.length > 0 && (
          <p className="small">
            <strong>{t('graph.aliases')}</strong> {e.aliases.join(' · ')}
          </p>
        )}
        <h4>{t('graph.outgoing', { count: e.outgoing.length })}</h4>
        <TripleTable triples={e.outgoing} direction="out" onEntity={onEntity} testId="entity-outgoing" />
        <h4>{t('graph.incoming', { count: e.incoming.length })}</h4>
        <TripleTable triples={e.incoming} direction="in" onEntity={onEntity} testId="entity-incoming" />
        <h4>{t('graph.sourceChunks', { count: e.sourceChunks.length })}</h4>
        {e.sourceChunks.length === 0 ? (
          <p className="muted">{t('graph.noSources')}</p>
        ) : (
          <ul className="source-chunks">
            {e.sourceChunks.map((c) => (
              <li key={c.chunkId}>
                <button
                  type="button"
                  className="citation"
                  onClick={() =>
                    setCitation({
                      documentId: c.documentId,
                      documentTitle: c.documentTitle,
                      chunkId: c.chunkId,
                      page: c.page,
                      startOffset: 0,
                      endOffset: 0,
                    })
                  }
                  data-testid="entity-source"
                >
                  {c.documentTitle}
                  {c.page !== null && `, ${t('ask.page', { page: c.page })}`}
                </button>
                <p className="small clamp">{c.text}</p>
              </li>
            ))}
          </ul>
        )}
      </article>
      <Neighbourhood kb={kb} id={e.id} name={e.name} onEntity={onEntity} />
      {citation && <PassageDialog kb={kb} citation={citation} onClose={() => setCitation(null)} />}
    </>
  );
}

/** Entity search with a type filter, the entity card and its neighbourhood. */
export function EntityExplorer({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [type, setType] = useState('');
  const [submitted, setSubmitted] = useState<{ query: string; type: string } | null>(null);
  const open = useApp((s) => s.openEntity);
  const setOpen = useApp((s) => s.setOpenEntity);
  const results = useApi(
    'graph:search',
    submitted ? { kb, query: submitted.query, limit: 50, ...(submitted.type ? { type: submitted.type } : {}) } : null,
  );
  const types = [...new Set((results.data ?? []).map((r) => r.type))].sort();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted({ query: query.trim(), type: type.trim() });
  };
  const openId = (id: number) => setOpen({ id, name: results.data?.find((r) => r.id === id)?.name ?? String(id) });

  return (
    <div className="screen-grid graph">
      <section className="panel" aria-labelledby="entity-search-heading">
        <h3 id="entity-search-heading">{t('graph.searchEntities')}</h3>
        <form className="form" onSubmit={submit} role="search">
          <label>
            <span>{t('graph.searchLabel')}</span>
            <input
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder={t('graph.searchPlaceholder')}
              data-testid="graph-search-input"
            />
          </label>
          <label>
            <span>{t('graph.typeFilter')}</span>
            <input
              value={type}
              onChange={(e) => setType(e.target.value)}
              list="entity-types"
              placeholder={t('graph.anyType')}
              data-testid="graph-type-filter"
            />
            <datalist id="entity-types">
              {types.map((ty) => (
                <option key={ty} value={ty} />
              ))}
            </datalist>
          </label>
          <button type="submit" className="primary" data-testid="graph-search-submit">
            {t('graph.search')}
          </button>
        </form>
        {!submitted && <Empty title={t('graph.searchEmpty')} hint={t('graph.searchEmptyHint')} />}
        {results.status === 'loading' && <Loading />}
        {results.status === 'error' && <ErrorView error={results.error} onRetry={results.reload} compact />}
        {results.status === 'ready' && results.data.length === 0 && (
          <Empty title={t('graph.noResults')} hint={t('graph.noResultsHint')} testId="graph-no-results" />
        )}
        {results.data && results.data.length > 0 && (
          <ul className="entity-results" data-testid="graph-results">
            {results.data.map((r) => (
              <li key={r.id} className={open?.id === r.id ? 'selected' : undefined}>
                <button
                  type="button"
                  className="link"
                  onClick={() => openId(r.id)}
                  data-testid={`graph-result-${r.id}`}
                  data-name={r.name}
                >
                  {r.name}
                </button>{' '}
                <span className="badge">{r.type}</span>
                {r.summary && <p className="small muted clamp">{r.summary}</p>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <div className="stack">
        {open ? (
          <EntityCardView key={open.id} kb={kb} id={open.id} onEntity={(id) => setOpen({ id, name: String(id) })} />
        ) : (
          <Empty title={t('graph.noEntity')} hint={t('graph.noEntityHint')} />
        )}
      </div>
    </div>
  );
}
