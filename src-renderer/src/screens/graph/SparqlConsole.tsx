import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type SparqlResult } from '../../../api/index.js';
import { ErrorView } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import { useAction } from '../../lib/useApi.js';
import { TableScroll } from '../../components/TableScroll.js';

export const PREFIXES = `PREFIX ph: <https://polyhop.app/ontology#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
`;

/** Example queries over the MDER ontology (resources/ontology.ttl). */
const EXAMPLES: { id: string; query: string }[] = [
  {
    id: 'entities',
    query: `${PREFIXES}\nSELECT ?entity ?name WHERE {\n  ?entity a ph:Entity ;\n          ph:hasName ?name .\n}\nLIMIT 50`,
  },
  {
    id: 'triples',
    query:
      `${PREFIXES}\nSELECT ?source ?relation ?target WHERE {\n  ?t a ph:Triple ;\n     ph:hasSource/ph:hasName ?source ;\n` +
      '     ph:hasRelationship/ph:hasName ?relation ;\n     ph:hasTarget/ph:hasName ?target .\n}\nLIMIT 50',
  },
  {
    id: 'documents',
    query: `${PREFIXES}\nSELECT ?document (COUNT(?chunk) AS ?chunks) WHERE {\n  ?document ph:hasChunk ?chunk .\n}\nGROUP BY ?document`,
  },
  { id: 'describe', query: `${PREFIXES}\nCONSTRUCT { ?s ?p ?o } WHERE {\n  ?s a ph:Entity ; ?p ?o .\n}\nLIMIT 30` },
];

function Results({ result }: { result: SparqlResult }) {
  const { t } = useTranslation();
  const meta = (
    <p className="muted small" data-testid="sparql-meta">
      {t('sparql.elapsed', { ms: formatNumber(result.elapsedMs, 1), rows: formatNumber(result.rows.length) })}
      {result.truncated && ` ${t('sparql.truncated')}`}
      {result.storeCopy && (
        <span className="error-text" role="note" data-testid="sparql-store-copy" data-state={result.storeCopy.state}>
          {' '}
          {t(`sparql.storeCopy.${result.storeCopy.state}`, {
            documents: formatNumber(result.storeCopy.pendingDocuments),
            entities: formatNumber(result.storeCopy.pendingEntities),
          })}
        </span>
      )}
    </p>
  );
  if (result.kind === 'ask') {
    return (
      <div data-testid="sparql-results" data-kind="ask">
        <p className="answer-text">{result.boolean ? t('sparql.true') : t('sparql.false')}</p>
        {meta}
      </div>
    );
  }
  if (result.kind === 'graph') {
    return (
      <div data-testid="sparql-results" data-kind="graph">
        <pre className="turtle">{result.turtle ?? ''}</pre>
        {meta}
      </div>
    );
  }
  if (result.kind === 'update') {
    return (
      <div data-testid="sparql-results" data-kind="update">
        <p>{t('sparql.updated')}</p>
        {meta}
      </div>
    );
  }
  return (
    <div data-testid="sparql-results" data-kind="select" data-rows={result.rows.length}>
      {meta}
      {result.rows.length === 0 ? (
        <p className="muted">{t('sparql.noRows')}</p>
      ) : (
        <TableScroll>
          <table>
            <thead>
              <tr>
                {result.columns.map((c) => (
                  <th key={c} scope="col">
                    ?{c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row, i) => (
                <tr key={i}>
                  {result.columns.map((c) => (
                    <td key={c} className="break">
                      {row[c] ?? ''}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}

/** SPARQL over the KB's RDF view or its external store; read-only unless the user ticks "allow updates". */
export function SparqlConsole({ kb, storeConfigured = false }: { kb: string; storeConfigured?: boolean }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState(EXAMPLES[0]!.query);
  const [allowUpdate, setAllowUpdate] = useState(false);
  const [target, setTarget] = useState<'view' | 'store'>('view');
  const [result, setResult] = useState<SparqlResult | null>(null);
  const run = useAction(async () => {
    setResult(null);
    setResult(await api().call('sparql:query', { kb, query, allowUpdate, target: storeConfigured ? target : 'view' }));
  });
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !run.pending) void run.run();
  };
  return (
    <section className="panel form sparql" aria-labelledby="sparql-heading">
      <h3 id="sparql-heading">{t('sparql.title')}</h3>
      <div className="row wrap">
        <label className="inline">
          <span>{t('sparql.examples')}</span>
          <select
            defaultValue=""
            onChange={(e) => {
              const ex = EXAMPLES.find((x) => x.id === e.target.value);
              if (ex) setQuery(ex.query);
            }}
            data-testid="sparql-example"
          >
            <option value="" disabled>
              {t('sparql.pickExample')}
            </option>
            {EXAMPLES.map((ex) => (
              <option key={ex.id} value={ex.id}>
                {t(`sparql.example.${ex.id}`)}
              </option>
            ))}
          </select>
        </label>
        {storeConfigured && (
          <label className="inline">
            <span>{t('sparql.target')}</span>
            <select
              value={target}
              onChange={(e) => setTarget(e.target.value as 'view' | 'store')}
              data-testid="sparql-target"
            >
              <option value="view">{t('sparql.targetView')}</option>
              <option value="store">{t('sparql.targetStore')}</option>
            </select>
          </label>
        )}
        <label className="check">
          <input
            type="checkbox"
            checked={allowUpdate}
            onChange={(e) => setAllowUpdate(e.target.checked)}
            data-testid="sparql-allow-update"
          />
          <span>{t('sparql.allowUpdate')}</span>
        </label>
      </div>
      <label>
        <span>{t('sparql.query')}</span>
        <textarea
          className="code"
          rows={12}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
          spellCheck={false}
          data-testid="sparql-editor"
        />
      </label>
      <div className="row">
        <button
          type="button"
          className="primary"
          onClick={() => void run.run()}
          disabled={run.pending || !query.trim()}
          data-testid="sparql-run"
        >
          {run.pending ? t('common.working') : t('sparql.run')}
        </button>
        <span className="muted small">{t('ask.shortcut')}</span>
      </div>
      {run.error && (
        <div data-testid="sparql-error">
          <ErrorView error={run.error} compact />
        </div>
      )}
      {result && <Results result={result} />}
    </section>
  );
}
