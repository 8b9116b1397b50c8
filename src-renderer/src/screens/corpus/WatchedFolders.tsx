import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/index.js';
import { ErrorView, Loading } from '../../components/StateViews.js';
import { formatDate, formatNumber } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';

/**
 * The KB's folders kept in sync: how each is followed (file events, periodic scans, or not while
 * nothing runs), its last sync, and a way to stop following it. A sync of this KB reloads the list
 * and tells the screen, whose document rows changed.
 */
export function WatchedFolders({ kb, refreshKey, onSynced }: { kb: string; refreshKey: number; onSynced: () => void }) {
  const { t } = useTranslation();
  const folders = useApi('watch:list', { kb });
  const { reload } = folders;
  useEffect(reload, [refreshKey, reload]);
  useEffect(
    () =>
      api().on('watch:synced', (sync) => {
        if (sync.kb !== kb) return;
        reload();
        onSynced();
      }),
    [kb, reload, onSynced],
  );
  const stop = useAction(async (path: string) => {
    await api().call('watch:remove', { kb, path });
    reload();
  });

  if (folders.status === 'error') return <ErrorView error={folders.error} onRetry={reload} compact />;
  if (!folders.data) return <Loading />;
  if (folders.data.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="watched-heading" data-testid="watched-folders">
      <h3 id="watched-heading">{t('corpus.watchedFolders')}</h3>
      <ul className="watched-list">
        {folders.data.map((f) => (
          <li key={f.path} data-testid="watched-folder" data-path={f.path} data-mode={f.mode}>
            <code className="break">{f.path}</code> <span className="badge">{t(`corpus.watchModes.${f.mode}`)}</span>
            {f.message && <p className="muted small">{f.message}</p>}
            {f.lastSync && (
              <p className="muted small" data-testid="watched-folder-sync" data-added={f.lastSync.added}>
                {t('corpus.watchLastSync', {
                  at: formatDate(f.lastSync.at),
                  added: formatNumber(f.lastSync.added),
                  removed: formatNumber(f.lastSync.removed),
                  renamed: formatNumber(f.lastSync.renamed),
                  errors: formatNumber(f.lastSync.errors),
                })}
              </p>
            )}
            <button
              type="button"
              onClick={() => void stop.run(f.path)}
              disabled={stop.pending}
              data-testid="watched-folder-stop"
            >
              {t('corpus.watchStop')}
            </button>
          </li>
        ))}
      </ul>
      {stop.error && <ErrorView error={stop.error} compact />}
    </section>
  );
}
