import { useTranslation } from 'react-i18next';
import type { JobProgress } from '../../api/index.js';
import { formatNumber, formatSeconds } from '../lib/format.js';
import type { JobView } from '../store/jobs.js';
import { ErrorView } from './StateViews.js';
import { ApiError } from '../../api/index.js';

function percent(p: JobProgress): number | null {
  return p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : null;
}

function StageRow({ p }: { p: JobProgress }) {
  const { t } = useTranslation();
  const pct = percent(p);
  const stageName = t(`stages.${p.stage}`, { defaultValue: p.stage });
  return (
    <li className="stage" data-testid={`job-stage-${p.stage}`} data-done={p.done} data-total={p.total}>
      <div className="stage-head">
        <span className="stage-name">{stageName}</span>
        <span className="stage-count">
          {formatNumber(p.done)} / {formatNumber(p.total)}
          {pct !== null && ` (${pct} %)`}
        </span>
      </div>
      <progress max={p.total || 1} value={p.total ? p.done : undefined} aria-label={stageName} />
      <dl className="stage-stats">
        <dt>{t('job.rate')}</dt>
        <dd>{t('job.perSecond', { value: formatNumber(p.rate, 1) })}</dd>
        <dt>{t('job.eta')}</dt>
        <dd>{p.etaSeconds === null ? '—' : formatSeconds(p.etaSeconds)}</dd>
        <dt>{t('job.llmCalls')}</dt>
        <dd>{formatNumber(p.llmCalls)}</dd>
        <dt>{t('job.tokens')}</dt>
        <dd>
          {formatNumber(p.promptTokens)} + {formatNumber(p.completionTokens)}
        </dd>
        <dt>{t('job.cacheHits')}</dt>
        <dd>{formatNumber(p.cacheHits)}</dd>
      </dl>
      {p.message && <p className="stage-message">{p.message}</p>}
    </li>
  );
}

/** Progress of one job: a row per stage (counts, rate, ETA, LLM calls, tokens, cache hits). */
export function JobPanel({ job, title }: { job: JobView; title?: string }) {
  const { t } = useTranslation();
  const latest = job.latest;
  const pct = latest ? percent(latest) : null;
  return (
    <section
      className="job-panel"
      data-testid="job-progress"
      data-job-id={job.jobId}
      data-status={job.status}
      aria-label={title ?? t(`jobKinds.${job.kind}`)}
    >
      <header className="row between">
        <h3>{title ?? t(`jobKinds.${job.kind}`)}</h3>
        <span className={`badge status-${job.status}`} data-testid="job-status">
          {t(`jobStatus.${job.status}`)}
        </span>
      </header>
      <p className="visually-hidden" aria-live="polite">
        {t(`jobStatus.${job.status}`)}
        {latest ? ` — ${t(`stages.${latest.stage}`, { defaultValue: latest.stage })}` : ''}
      </p>
      {latest === null && job.status === 'running' && <p className="muted">{t('job.starting')}</p>}
      {pct !== null && (
        <p className="muted" data-testid="job-percent" data-percent={pct}>
          {t('job.currentStage', {
            stage: t(`stages.${latest!.stage}`, { defaultValue: latest!.stage }),
            percent: pct,
          })}
        </p>
      )}
      {job.stages.length > 0 && (
        <ol className="stages">
          {job.stages.map((stage) => {
            const p = job.progress[stage];
            return p ? <StageRow key={stage} p={p} /> : null;
          })}
        </ol>
      )}
      {job.notice && job.status === 'running' && (
        <p className="muted small" data-testid="job-endpoint-notice">
          {t('job.endpointNotice', { message: job.notice })}
        </p>
      )}
      {job.error && job.status === 'failed' && <ErrorView error={new ApiError(job.error)} compact />}
    </section>
  );
}
