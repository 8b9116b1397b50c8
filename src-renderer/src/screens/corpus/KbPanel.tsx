import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, isKbName, type KbSummary } from '../../../api/index.js';
import { ConfirmDialog } from '../../components/Dialog.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import { useAction } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { latestJob, useJobs } from '../../store/jobs.js';
import { KbUpgradeNotice } from './KbUpgradeNotice.js';

/** The name's first problem in the user's language, or null when valid. */
function useNameProblem(name: string): string | null {
  const { t } = useTranslation();
  if (!name) return null;
  return isKbName(name) ? null : t('corpus.kbNameRule');
}

export function CreateKbForm({ onCreated }: { onCreated?: (kb: KbSummary) => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [baseIri, setBaseIri] = useState('');
  const problem = useNameProblem(name);
  const { refreshKbs, setKb, announce } = useApp.getState();
  const create = useAction(async () => {
    const kb = await api().call('kb:create', {
      name,
      ...(description ? { description } : {}),
      ...(baseIri ? { baseIri } : {}),
    });
    await refreshKbs();
    setKb(kb.name);
    announce(t('corpus.kbCreated', { name: kb.name }));
    setName('');
    setDescription('');
    setBaseIri('');
    onCreated?.(kb);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name && !problem) void create.run();
  };
  return (
    <form className="form" onSubmit={submit} aria-labelledby="kb-create-heading">
      <h3 id="kb-create-heading">{t('corpus.createKb')}</h3>
      <label>
        <span>{t('corpus.kbName')}</span>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={64}
          aria-invalid={problem ? true : undefined}
          aria-describedby="kb-name-rule"
          data-testid="kb-create-name"
        />
      </label>
      <p id="kb-name-rule" className={problem ? 'error-text small' : 'muted small'}>
        {problem ?? t('corpus.kbNameRule')}
      </p>
      <label>
        <span>{t('corpus.kbDescription')}</span>
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          data-testid="kb-create-description"
        />
      </label>
      <label>
        <span>{t('corpus.kbBaseIri')}</span>
        <input
          type="url"
          value={baseIri}
          onChange={(e) => setBaseIri(e.target.value)}
          placeholder="https://example.org/kb/"
          data-testid="kb-create-baseiri"
        />
      </label>
      <button type="submit" disabled={!name || !!problem || create.pending} data-testid="kb-create-submit">
        {create.pending ? t('common.working') : t('corpus.create')}
      </button>
      {create.error && <ErrorView error={create.error} compact />}
    </form>
  );
}

function KbItem({ kb, current }: { kb: KbSummary; current: boolean }) {
  const { t } = useTranslation();
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(kb.name);
  const [deleting, setDeleting] = useState(false);
  const { refreshKbs, setKb, announce } = useApp.getState();
  const problem = useNameProblem(newName);
  // Imported without an embedding model: rows waiting for their first vectors (with an embedder:
  // original-language vectors of a KB indexed before they existed).
  const unembedded = kb.missingVectors > 0;
  const reembedStatus = useJobs((s) => latestJob(s.jobs, 'reembed', kb.name)?.status);
  useEffect(() => {
    if (reembedStatus && reembedStatus !== 'running') void refreshKbs();
  }, [reembedStatus, refreshKbs]);
  const rename = useAction(async () => {
    const renamed = await api().call('kb:rename', { kb: kb.name, newName });
    if (current) setKb(renamed.name);
    await refreshKbs();
    setRenaming(false);
    announce(t('corpus.kbRenamed', { name: renamed.name }));
  });
  const reembed = useAction(async () => {
    const { jobId } = await api().call('kb:reembed', { kb: kb.name });
    useJobs.getState().track(jobId, 'reembed', kb.name);
    announce(t('corpus.reembedStarted', { name: kb.name }));
  });
  const remove = useAction(async () => {
    await api().call('kb:delete', { kb: kb.name });
    setDeleting(false);
    await refreshKbs();
    announce(t('corpus.kbDeleted', { name: kb.name }));
  });
  return (
    <li
      className={current ? 'kb-item current' : 'kb-item'}
      data-testid={`kb-row-${kb.name}`}
      aria-current={current ? 'true' : undefined}
    >
      {renaming ? (
        <form
          className="row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            if (!problem && newName !== kb.name) void rename.run();
          }}
        >
          <label className="inline">
            <span>{t('corpus.newName')}</span>
            <input
              value={newName}
              onChange={(e) => setNewName(e.target.value)}
              autoFocus
              aria-invalid={problem ? true : undefined}
              data-testid="kb-rename-input"
            />
          </label>
          <button type="submit" disabled={!!problem || rename.pending} data-testid="kb-rename-submit">
            {t('corpus.rename')}
          </button>
          <button type="button" onClick={() => setRenaming(false)}>
            {t('common.cancel')}
          </button>
          {problem && <p className="error-text small">{problem}</p>}
        </form>
      ) : (
        <>
          <div className="kb-main">
            <strong>{kb.name}</strong>
            {current && <span className="badge">{t('corpus.current')}</span>}
            {kb.description && <p className="muted">{kb.description}</p>}
            <p className="small muted">
              {t('corpus.kbCounts', {
                documents: formatNumber(kb.documentCount),
                entities: formatNumber(kb.entityCount),
                triples: formatNumber(kb.tripleCount),
              })}
            </p>
            {unembedded && (
              <p className="small warning-text" role="status" data-testid={`kb-vectors-missing-${kb.name}`}>
                {t(kb.embedder ? 'corpus.originalVectorsMissing' : 'corpus.vectorsMissing', {
                  count: kb.missingVectors,
                })}
              </p>
            )}
            <KbUpgradeNotice kb={kb} />
          </div>
          <div className="row">
            {!current && (
              <button type="button" onClick={() => setKb(kb.name)} data-testid={`kb-use-${kb.name}`}>
                {t('corpus.use')}
              </button>
            )}
            <button type="button" onClick={() => setRenaming(true)} data-testid={`kb-rename-${kb.name}`}>
              {t('corpus.rename')}
            </button>
            <button
              type="button"
              onClick={() => void reembed.run()}
              disabled={reembed.pending}
              title={t('corpus.reembedHint')}
              data-testid={`kb-reembed-${kb.name}`}
            >
              {unembedded ? t('corpus.embed') : t('corpus.reembed')}
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => setDeleting(true)}
              data-testid={`kb-delete-${kb.name}`}
            >
              {t('common.delete')}
            </button>
          </div>
        </>
      )}
      {rename.error && <ErrorView error={rename.error} compact />}
      {reembed.error && <ErrorView error={reembed.error} compact />}
      {deleting && (
        <ConfirmDialog
          title={t('corpus.deleteKb', { name: kb.name })}
          message={
            <>
              <p>
                {t('corpus.deleteKbLoss', {
                  documents: formatNumber(kb.documentCount),
                  entities: formatNumber(kb.entityCount),
                  triples: formatNumber(kb.tripleCount),
                })}
              </p>
              <p>{t('corpus.deleteKbKeeps')}</p>
              {remove.error && <ErrorView error={remove.error} compact />}
            </>
          }
          confirmLabel={t('common.delete')}
          pending={remove.pending}
          onConfirm={() => void remove.run()}
          onCancel={() => setDeleting(false)}
        />
      )}
    </li>
  );
}

/** Knowledge bases: list, switch, rename, delete, create. */
export function KbPanel() {
  const { t } = useTranslation();
  const kbs = useApp((s) => s.kbs);
  const status = useApp((s) => s.kbsStatus);
  const error = useApp((s) => s.kbsError);
  const current = useApp((s) => s.kb);
  return (
    <section className="panel kb-panel" aria-labelledby="kb-heading">
      <h2 id="kb-heading">{t('corpus.knowledgeBases')}</h2>
      {status === 'loading' && <Loading />}
      {error && <ErrorView error={error} onRetry={() => void useApp.getState().refreshKbs()} />}
      {status === 'ready' && kbs.length === 0 && (
        <Empty title={t('corpus.noKb')} hint={t('corpus.noKbHint')} testId="kb-empty" />
      )}
      {kbs.length > 0 && (
        <ul className="kb-list" data-testid="kb-list">
          {kbs.map((kb) => (
            <KbItem key={kb.name} kb={kb} current={kb.name === current} />
          ))}
        </ul>
      )}
      <CreateKbForm />
    </section>
  );
}
