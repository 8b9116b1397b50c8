import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type KbSummary } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { ErrorView } from '../../components/StateViews.js';
import { useAction } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { latestJob, useJobs } from '../../store/jobs.js';

/**
 * A KB an older Polyhop made still needs its upgrade job: it starts when the KB is used, and this
 * starts it now; its progress shows here. Listing KBs starts none, so that the app
 * does not upgrade every old KB at once.
 */
export function KbUpgradeNotice({ kb }: { kb: KbSummary }) {
  const { t } = useTranslation();
  const { refreshKbs, announce } = useApp.getState();
  // Also a job the engine started on its own when the KB was used.
  const job = useJobs((s) => latestJob(s.jobs, 'upgrade', kb.name));
  const status = job?.status;
  useEffect(() => {
    if (status && status !== 'running') void refreshKbs();
  }, [status, refreshKbs]);
  const upgrade = useAction(async () => {
    const { jobId } = await api().call('kb:upgrade', { kb: kb.name });
    if (jobId) {
      useJobs.getState().track(jobId, 'upgrade', kb.name);
      announce(t('corpus.upgradeStarted', { name: kb.name }));
    } else {
      await refreshKbs();
      announce(t('corpus.upgradeNotNeeded', { name: kb.name }));
    }
  });
  if (!kb.upgradeDue) return null;
  const running = status === 'running';
  return (
    <div className="small warning-text" role="status" data-testid={`kb-upgrade-due-${kb.name}`}>
      <p>{t('corpus.upgradeDue')}</p>
      <button
        type="button"
        onClick={() => void upgrade.run()}
        disabled={running || upgrade.pending}
        data-testid={`kb-upgrade-${kb.name}`}
      >
        {running ? t('corpus.upgradeRunning') : t('corpus.upgrade')}
      </button>
      {running && <JobPanel job={job!} />}
      {upgrade.error && <ErrorView error={upgrade.error} compact />}
    </div>
  );
}
