import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type ThreadExportFormat, type ThreadSummary } from '../../../api/index.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { downloadText, formatDate } from '../../lib/format.js';
import { useAction, useApi, useDebouncedSearch } from '../../lib/useApi.js';

/** Rename, export and delete for the selected thread. */
function ThreadActions({
  kb,
  thread,
  onChanged,
}: {
  kb: string;
  thread: ThreadSummary;
  onChanged: (deleted: boolean) => void;
}) {
  const { t } = useTranslation();
  const [title, setTitle] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const rename = useAction(async (e: FormEvent) => {
    e.preventDefault();
    if (!title?.trim()) return;
    await api().call('threads:rename', { kb, thread: thread.id, title: title.trim() });
    setTitle(null);
    onChanged(false);
  });
  const remove = useAction(async () => {
    await api().call('threads:delete', { kb, thread: thread.id });
    setConfirming(false);
    onChanged(true);
  });
  const exportAs = useAction(async (format: ThreadExportFormat) => {
    const file = await api().call('threads:export', { kb, thread: thread.id, format });
    downloadText(file.fileName, file.text, file.mime);
  });
  const error = rename.error ?? remove.error ?? exportAs.error;
  return (
    <div className="stack thread-actions" data-testid="thread-actions">
      {title === null ? (
        <div className="row wrap">
          <button
            type="button"
            className="small-button"
            onClick={() => setTitle(thread.title)}
            data-testid="thread-rename"
          >
            {t('threads.rename')}
          </button>
          <button
            type="button"
            className="small-button"
            onClick={() => void exportAs.run('markdown')}
            data-testid="thread-export-markdown"
          >
            {t('threads.exportMarkdown')}
          </button>
          <button
            type="button"
            className="small-button"
            onClick={() => void exportAs.run('json')}
            data-testid="thread-export-json"
          >
            {t('threads.exportJson')}
          </button>
          {confirming ? (
            <button
              type="button"
              className="small-button danger"
              onClick={() => void remove.run()}
              disabled={remove.pending}
              data-testid="thread-delete-confirm"
            >
              {t('threads.deleteConfirm')}
            </button>
          ) : (
            <button
              type="button"
              className="small-button"
              onClick={() => setConfirming(true)}
              data-testid="thread-delete"
            >
              {t('common.delete')}
            </button>
          )}
        </div>
      ) : (
        <form className="row wrap" onSubmit={(e) => void rename.run(e)}>
          <label className="inline">
            <span>{t('threads.title')}</span>
            <input
              value={title}
              onChange={(e) => setTitle(e.target.value)}
              maxLength={200}
              data-testid="thread-rename-input"
              autoFocus
            />
          </label>
          <button type="submit" className="small-button" disabled={!title.trim()} data-testid="thread-rename-save">
            {t('common.save')}
          </button>
          <button type="button" className="small-button" onClick={() => setTitle(null)}>
            {t('common.cancel')}
          </button>
        </form>
      )}
      {error && <ErrorView error={error} compact />}
    </div>
  );
}

/** The KB's conversations: start a new one, search, pick one to continue, rename, export, delete. */
export function ThreadsPanel({
  kb,
  selected,
  refreshKey,
  onSelect,
  onChanged,
}: {
  kb: string;
  selected: number | null;
  refreshKey: number;
  onSelect: (thread: number | null) => void;
  /** After a rename or delete of the selected thread. */
  onChanged: (deleted: boolean) => void;
}) {
  const { t } = useTranslation();
  const { input, setInput, search } = useDebouncedSearch();
  const list = useApi('threads:list', { kb, ...(search ? { search } : {}), limit: 100 }, refreshKey);
  const reload = list.reload;
  const threads = list.data ?? [];
  const current = threads.find((th) => th.id === selected);
  return (
    <section className="panel threads" aria-labelledby="threads-heading">
      <div className="row between wrap">
        <h3 id="threads-heading">{t('threads.heading')}</h3>
        <button type="button" onClick={() => onSelect(null)} disabled={selected === null} data-testid="thread-new">
          {t('threads.new')}
        </button>
      </div>
      <label>
        <span>{t('threads.search')}</span>
        <input type="search" value={input} onChange={(e) => setInput(e.target.value)} data-testid="thread-search" />
      </label>
      {list.status === 'loading' && !list.data && <Loading />}
      {list.status === 'error' && <ErrorView error={list.error} onRetry={reload} compact />}
      {list.status === 'ready' && threads.length === 0 && (
        <Empty title={search ? t('threads.noMatch') : t('threads.empty')} testId="thread-empty" />
      )}
      <ul className="history-list" data-testid="thread-list">
        {threads.map((th) => (
          <li
            key={th.id}
            data-testid="thread-item"
            data-thread-id={th.id}
            aria-current={th.id === selected || undefined}
          >
            <button type="button" className="link" onClick={() => onSelect(th.id)} data-testid="thread-select">
              {th.title}
            </button>
            <span className="muted small">
              {' '}
              {formatDate(th.updatedAt)} · {t('threads.turns', { count: th.turnCount })}
            </span>
          </li>
        ))}
      </ul>
      {current && (
        <ThreadActions
          key={current.id}
          kb={kb}
          thread={current}
          onChanged={(deleted) => {
            reload();
            onChanged(deleted);
          }}
        />
      )}
    </section>
  );
}
