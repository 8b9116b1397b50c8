import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApp } from '../../store/app.js';
import { useJobs, latestJob } from '../../store/jobs.js';
import { AddDocuments } from './AddDocuments.js';
import { DocumentDetail } from './DocumentDetail.js';
import { DocumentTable } from './DocumentTable.js';
import { IndexPanel } from './IndexPanel.js';
import { KbPanel } from './KbPanel.js';
import { WatchedFolders } from './WatchedFolders.js';

const REFRESH_WHILE_INDEXING_MS = 3000;

export function CorpusScreen() {
  const { t } = useTranslation();
  const kb = useApp((s) => s.kb);
  const open = useApp((s) => s.openDocument);
  const setOpen = useApp((s) => s.setOpenDocument);
  const [refreshKey, setRefreshKey] = useState(0);
  const bump = useCallback(() => setRefreshKey((n) => n + 1), []);
  // A watched folder's sync changes the rows and the KB's counts.
  const synced = useCallback(() => {
    bump();
    void useApp.getState().refreshKbs();
  }, [bump]);
  const indexStatus = useJobs((s) => latestJob(s.jobs, 'index', kb)?.status);

  // Counts and statuses change while indexing: refresh the visible rows now and then, and at the end.
  useEffect(() => {
    bump();
    if (indexStatus !== 'running') return;
    const id = setInterval(bump, REFRESH_WHILE_INDEXING_MS);
    return () => clearInterval(id);
  }, [indexStatus, bump]);
  useEffect(() => {
    if (indexStatus && indexStatus !== 'running') void useApp.getState().refreshKbs();
  }, [indexStatus]);

  return (
    <div className="screen-grid corpus">
      <KbPanel />
      {kb ? (
        <div className="stack">
          <h2>{t('corpus.documentsOf', { kb })}</h2>
          <div className="two-col">
            <AddDocuments kb={kb} onAdded={bump} />
            <IndexPanel kb={kb} refreshKey={refreshKey} />
          </div>
          <WatchedFolders kb={kb} refreshKey={refreshKey} onSynced={synced} />
          <div className={open ? 'table-and-detail' : ''}>
            <DocumentTable
              key={kb}
              kb={kb}
              selectedId={open?.id ?? null}
              refreshKey={refreshKey}
              onOpen={(row) => setOpen({ id: row.id, title: row.title })}
            />
            {open && (
              <DocumentDetail
                key={open.id}
                kb={kb}
                id={open.id}
                onClose={() => setOpen(null)}
                onRemoved={() => {
                  setOpen(null);
                  bump();
                  void useApp.getState().refreshKbs();
                }}
              />
            )}
          </div>
        </div>
      ) : null}
    </div>
  );
}
