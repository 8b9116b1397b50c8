import { useCallback, useState } from 'react';
import type { StoreStatus } from '../../../api/index.js';
import { useTranslation } from 'react-i18next';
import { EntityExplorer } from './EntityExplorer.js';
import { ExportPanel, ImportPanel } from './RdfTransfer.js';
import { SparqlConsole } from './SparqlConsole.js';
import { StorePanel } from './StorePanel.js';

const VIEWS = ['explore', 'sparql', 'transfer'] as const;
type View = (typeof VIEWS)[number];

export function GraphScreen({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const [view, setView] = useState<View>('explore');
  const [storeConfigured, setStoreConfigured] = useState(false);
  const onStoreChanged = useCallback((s: StoreStatus) => setStoreConfigured(s.config !== null), []);
  return (
    <div className="stack">
      <h2>{t('graph.title', { kb })}</h2>
      <nav className="subnav" aria-label={t('graph.views')}>
        {VIEWS.map((v) => (
          <button
            key={v}
            type="button"
            aria-current={v === view ? 'page' : undefined}
            onClick={() => setView(v)}
            data-testid={`graph-view-${v}`}
          >
            {t(`graph.view.${v}`)}
          </button>
        ))}
      </nav>
      {view === 'explore' && <EntityExplorer kb={kb} />}
      {view === 'sparql' && (
        <>
          <SparqlConsole kb={kb} storeConfigured={storeConfigured} />
          <StorePanel kb={kb} onChanged={onStoreChanged} />
        </>
      )}
      {view === 'transfer' && (
        <div className="two-col">
          <ExportPanel kb={kb} />
          <ImportPanel />
        </div>
      )}
    </div>
  );
}
