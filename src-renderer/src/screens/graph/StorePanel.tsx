import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Request, type StoreStatus } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { ConfirmDialog } from '../../components/Dialog.js';
import { ErrorView } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import { useAction } from '../../lib/useApi.js';
import { useJobs } from '../../store/jobs.js';

type AuthKind = Request<'store:set'>['auth'] extends infer A ? (A extends { kind: infer K } ? K : never) : never;

/**
 * The KB's external SPARQL store: where it is (the three standard endpoints, the graph, auth),
 * publish (full resync) and sync as jobs with progress and cancel, and the sync state (last sync,
 * pending changes, last error). The password is write-only: the engine says only whether it has one.
 */
export function StorePanel({ kb, onChanged }: { kb: string; onChanged?: (status: StoreStatus) => void }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<StoreStatus | null>(null);
  const [queryUrl, setQueryUrl] = useState('');
  const [updateUrl, setUpdateUrl] = useState('');
  const [graphStoreUrl, setGraphStoreUrl] = useState('');
  const [graphIri, setGraphIri] = useState('');
  const [authKind, setAuthKind] = useState<AuthKind>('none');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [autoSync, setAutoSync] = useState(true);
  const [timeoutS, setTimeoutS] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [confirmTakeOver, setConfirmTakeOver] = useState(false);
  const job = useJobs((s) => (jobId ? s.jobs[jobId] : undefined));

  const show = useCallback(
    (next: StoreStatus, fillForm: boolean) => {
      setStatus(next);
      onChanged?.(next);
      if (next.jobId) {
        useJobs.getState().track(next.jobId, 'store', kb);
        setJobId(next.jobId);
      }
      if (fillForm && next.config) {
        setQueryUrl(next.config.queryUrl);
        setUpdateUrl(next.config.updateUrl);
        setGraphStoreUrl(next.config.graphStoreUrl);
        setGraphIri(next.config.graphIri);
        setAuthKind(next.config.auth.kind);
        setUsername(next.config.auth.username ?? '');
        setAutoSync(next.config.autoSync);
        setTimeoutS(String(next.config.requestTimeoutMs / 1000));
      }
    },
    [kb, onChanged],
  );
  const load = useAction(async (probe: boolean) => show(await api().call('store:show', { kb, probe }), false));
  useEffect(() => {
    void api()
      .call('store:show', { kb, probe: false })
      .then(
        (s) => show(s, true),
        () => undefined,
      );
  }, [kb, show]);
  // A finished publish or sync changes the state shown.
  useEffect(() => {
    if (job && job.status !== 'running') void load.run(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [job?.status]);

  const save = useAction(async () => {
    const auth: Request<'store:set'>['auth'] =
      authKind === 'none' ? { kind: 'none' } : { kind: authKind, username, ...(password ? { password } : {}) };
    const next = await api().call('store:set', {
      kb,
      queryUrl: queryUrl.trim(),
      ...(updateUrl.trim() ? { updateUrl: updateUrl.trim() } : {}),
      ...(graphStoreUrl.trim() ? { graphStoreUrl: graphStoreUrl.trim() } : {}),
      ...(graphIri.trim() ? { graphIri: graphIri.trim() } : {}),
      auth,
      autoSync,
      ...(Number(timeoutS) >= 1 ? { requestTimeoutMs: Math.round(Number(timeoutS) * 1000) } : {}),
    });
    setPassword('');
    show(next, true);
  });
  const start = useAction(async (method: 'store:publish' | 'store:sync', takeOver: boolean = false) => {
    setConfirmTakeOver(false);
    const { jobId: id } = await api().call(method, method === 'store:publish' ? { kb, takeOver } : { kb });
    useJobs.getState().track(id, 'store', kb);
    setJobId(id);
  });
  const cancel = useAction(async () => {
    if (jobId) await api().call('jobs:cancel', { jobId });
  });
  const remove = useAction(async () => {
    await api().call('store:remove', { kb });
    show(await api().call('store:show', { kb, probe: false }), false);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (queryUrl.trim()) void save.run();
  };
  const running = job?.status === 'running';
  const sync = status?.sync;
  // Another KB owns the graph (seen by a probe), or a publish was refused for it (another KB's, or
  // statements no KB claims): taking it over is offered, and confirmed before anything is replaced.
  const foreignGraph =
    (status?.graphOwner !== undefined && !status.graphOwner.thisKb) ||
    (job?.status === 'failed' && job.error?.code === 'CONFLICT');

  return (
    <section className="panel form" aria-labelledby="store-heading" data-testid="store-panel">
      <h3 id="store-heading">{t('store.title')}</h3>
      <p className="muted small">{t('store.intro')}</p>
      <form className="stack" onSubmit={submit}>
        <label>
          <span>{t('store.queryUrl')}</span>
          <input
            value={queryUrl}
            onChange={(e) => setQueryUrl(e.target.value)}
            placeholder="http://localhost:8890/sparql"
            spellCheck={false}
            required
            data-testid="store-query-url"
          />
        </label>
        <label>
          <span>{t('store.updateUrl')}</span>
          <input
            value={updateUrl}
            onChange={(e) => setUpdateUrl(e.target.value)}
            placeholder={t('store.sameAsQuery')}
            spellCheck={false}
            data-testid="store-update-url"
          />
        </label>
        <label>
          <span>{t('store.graphStoreUrl')}</span>
          <input
            value={graphStoreUrl}
            onChange={(e) => setGraphStoreUrl(e.target.value)}
            placeholder={t('store.sameAsQuery')}
            spellCheck={false}
            data-testid="store-gsp-url"
          />
        </label>
        <label>
          <span>{t('store.graphIri')}</span>
          <input
            value={graphIri}
            onChange={(e) => setGraphIri(e.target.value)}
            placeholder={t('store.graphDefault')}
            spellCheck={false}
            data-testid="store-graph"
          />
        </label>
        <div className="row wrap">
          <label className="inline">
            <span>{t('store.auth')}</span>
            <select value={authKind} onChange={(e) => setAuthKind(e.target.value as AuthKind)} data-testid="store-auth">
              {(['none', 'basic', 'digest'] as const).map((k) => (
                <option key={k} value={k}>
                  {t(`store.authKind.${k}`)}
                </option>
              ))}
            </select>
          </label>
          {authKind !== 'none' && (
            <>
              <label className="inline">
                <span>{t('store.user')}</span>
                <input
                  value={username}
                  onChange={(e) => setUsername(e.target.value)}
                  autoComplete="off"
                  required
                  data-testid="store-user"
                />
              </label>
              <label className="inline">
                <span>{t('store.password')}</span>
                <input
                  type="password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  autoComplete="new-password"
                  placeholder={status?.config?.auth.hasPassword ? t('store.passwordKept') : ''}
                  data-testid="store-password"
                />
              </label>
            </>
          )}
        </div>
        <label className="inline">
          <span>{t('store.timeout')}</span>
          <input
            type="number"
            min={1}
            max={3600}
            value={timeoutS}
            onChange={(e) => setTimeoutS(e.target.value)}
            placeholder="300"
            data-testid="store-timeout"
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={autoSync}
            onChange={(e) => setAutoSync(e.target.checked)}
            data-testid="store-auto-sync"
          />
          <span>{t('store.autoSync')}</span>
        </label>
        <div className="row wrap">
          <button
            type="submit"
            className="primary"
            disabled={save.pending || !queryUrl.trim()}
            data-testid="store-save"
          >
            {t('store.save')}
          </button>
          {status?.config && (
            <button
              type="button"
              onClick={() => void remove.run()}
              disabled={remove.pending || running}
              data-testid="store-remove"
            >
              {t('store.remove')}
            </button>
          )}
        </div>
        {save.error && <ErrorView error={save.error} compact />}
        {remove.error && <ErrorView error={remove.error} compact />}
      </form>

      {status?.config && sync && (
        <div className="stack" data-testid="store-status">
          <dl className="stage-stats">
            <dt>{t('store.state')}</dt>
            <dd data-testid="store-state">
              {sync.fullNeeded
                ? t('store.fullDue')
                : t('store.pending', {
                    documents: formatNumber(sync.pendingDocuments),
                    entities: formatNumber(sync.pendingEntities),
                  })}
            </dd>
            <dt>{t('store.lastSync')}</dt>
            <dd>{sync.syncedAt ? new Date(sync.syncedAt).toLocaleString() : t('store.never')}</dd>
            {status.storeQuads !== undefined && (
              <>
                <dt>{t('store.inStore')}</dt>
                <dd data-testid="store-quads">{formatNumber(status.storeQuads)}</dd>
              </>
            )}
          </dl>
          {sync.lastError && (
            <p className="error small" role="alert" data-testid="store-last-error">
              {t('store.lastError', { message: sync.lastError })}
            </p>
          )}
          {status.probeError && <p className="error small">{status.probeError}</p>}
          {status.updateProbe && !status.updateProbe.ok && (
            <p className="error small" data-testid="store-signin-error">
              {status.updateProbe.error}
            </p>
          )}
          {status.graphOwner && !status.graphOwner.thisKb && (
            <p className="error small" data-testid="store-other-owner">
              {t('store.otherOwner', { name: status.graphOwner.name })}
            </p>
          )}
          <div className="row wrap">
            <button
              type="button"
              className="primary"
              onClick={() => void start.run('store:sync')}
              disabled={running || start.pending}
              data-testid="store-sync"
            >
              {t('store.sync')}
            </button>
            <button
              type="button"
              onClick={() => void start.run('store:publish')}
              disabled={running || start.pending}
              data-testid="store-publish"
            >
              {t('store.publish')}
            </button>
            <button type="button" onClick={() => void load.run(true)} disabled={load.pending} data-testid="store-probe">
              {t('store.probe')}
            </button>
            {foreignGraph && !confirmTakeOver && (
              <button
                type="button"
                className="danger"
                onClick={() => setConfirmTakeOver(true)}
                disabled={running || start.pending}
                data-testid="store-take-over"
              >
                {t('store.takeOver')}
              </button>
            )}
            {running && (
              <button
                type="button"
                onClick={() => void cancel.run()}
                disabled={cancel.pending}
                data-testid="store-cancel"
              >
                {t('store.cancel')}
              </button>
            )}
          </div>
          {confirmTakeOver && (
            <ConfirmDialog
              title={t('store.takeOver')}
              message={t('store.takeOverWarning', { graph: status?.config?.graphIri ?? '' })}
              confirmLabel={t('store.takeOverConfirm')}
              onConfirm={() => void start.run('store:publish', true)}
              onCancel={() => setConfirmTakeOver(false)}
              pending={start.pending}
            />
          )}
          {start.error && <ErrorView error={start.error} compact />}
          {load.error && <ErrorView error={load.error} compact />}
          {job && <JobPanel job={job} />}
        </div>
      )}
    </section>
  );
}
