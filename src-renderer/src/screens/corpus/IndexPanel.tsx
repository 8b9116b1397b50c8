import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { ErrorView } from '../../components/StateViews.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { failedUnits, latestJob, useJobs } from '../../store/jobs.js';

/** Start / pause / resume / cancel indexing, the per-stage progress, and documents that failed. */
export function IndexPanel({ kb, refreshKey }: { kb: string; refreshKey: number }) {
  const { t } = useTranslation();
  const job = useJobs((s) => latestJob(s.jobs, 'index', kb));
  const running = job?.status === 'running';
  const paused = job?.status === 'paused';
  const start = useAction(async () => {
    const { jobId } = await api().call('index:start', { kb });
    useJobs.getState().track(jobId, 'index', kb);
  });
  const pause = useAction(async () => job && api().call('jobs:pause', { jobId: job.jobId }));
  const cancel = useAction(async () => job && api().call('jobs:cancel', { jobId: job.jobId }));
  // Documents in error sort first by status ("error" < "indexed" < …).
  const failed = useApi('docs:list', { kb, sort: 'status', descending: false, limit: 100, offset: 0, filter: '' });
  const reloadFailed = failed.reload;
  useEffect(() => {
    reloadFailed();
  }, [refreshKey, job?.status, reloadFailed]);
  const errors = failed.data?.rows.filter((r) => r.status === 'error') ?? [];
  const actionError = start.error ?? pause.error ?? cancel.error;
  const unitFailures = job ? failedUnits(job) : null;

  return (
    <section className="panel" aria-labelledby="index-heading">
      <h3 id="index-heading">{t('corpus.indexing')}</h3>
      <div className="row wrap">
        {!running && !paused && (
          <button
            type="button"
            className="primary"
            onClick={() => void start.run()}
            disabled={start.pending}
            data-testid="index-start"
          >
            {t('corpus.indexStart')}
          </button>
        )}
        {running && (
          <button type="button" onClick={() => void pause.run()} disabled={pause.pending} data-testid="index-pause">
            {t('corpus.indexPause')}
          </button>
        )}
        {paused && (
          <button
            type="button"
            className="primary"
            onClick={() => void start.run()}
            disabled={start.pending}
            data-testid="index-resume"
          >
            {t('corpus.indexResume')}
          </button>
        )}
        {(running || paused) && (
          <button
            type="button"
            className="danger"
            onClick={() => void cancel.run()}
            disabled={cancel.pending}
            data-testid="index-cancel"
          >
            {t('corpus.indexCancel')}
          </button>
        )}
      </div>
      <p className="muted small">{t('corpus.indexHint')}</p>
      {actionError && <ErrorView error={actionError} compact />}
      {job && <JobPanel job={job} />}
      {unitFailures && (
        <div role="alert" data-testid="index-failed-units">
          <p className="error">{t('corpus.unitsFailed', { failed: unitFailures.failed, units: unitFailures.units })}</p>
          <ul className="error-list">
            {unitFailures.reasons.map((g) => (
              <li key={g.reason}>
                {g.count} × {g.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {errors.length > 0 && (
        <div data-testid="index-errors">
          <h4>{t('corpus.documentErrors', { count: errors.length })}</h4>
          <ul className="error-list">
            {errors.map((d) => (
              <li key={d.id}>
                <strong>{d.title}</strong>: {d.error ?? t('docStatus.error')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
