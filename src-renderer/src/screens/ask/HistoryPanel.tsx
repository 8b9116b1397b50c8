import { useTranslation } from 'react-i18next';
import type { HistoryEntry } from '../../../api/index.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { downloadText, formatDate } from '../../lib/format.js';
import { useApi, useDebouncedSearch } from '../../lib/useApi.js';

/** History as Markdown: question, strategy, answer, then sources per entry. */
export function historyMarkdown(kb: string, entries: HistoryEntry[], heading: string): string {
  const out = [`# ${heading}: ${kb}`, ''];
  for (const { askedAt, answer } of entries) {
    out.push(
      `## ${answer.question}`,
      '',
      `*${askedAt} · ${answer.strategy} · ${answer.questionLanguage} → ${answer.answerLanguage}*`,
      '',
      answer.text,
      '',
    );
    const cited = new Map<string, string>();
    for (const e of answer.evidence)
      for (const c of e.citations)
        cited.set(
          `${c.documentId}:${c.chunkId}`,
          `${c.documentTitle}${c.page !== null ? `, p. ${c.page}` : ''} [${c.startOffset}–${c.endOffset}]`,
        );
    for (const source of cited.values()) out.push(`- ${source}`);
    out.push('');
  }
  return out.join('\n');
}

export function HistoryPanel({
  kb,
  refreshKey,
  onShow,
  onReask,
}: {
  kb: string;
  refreshKey: number;
  onShow: (e: HistoryEntry) => void;
  onReask: (e: HistoryEntry) => void;
}) {
  const { t } = useTranslation();
  const { input, setInput, search } = useDebouncedSearch();
  const history = useApi('qa:history', { kb, search, limit: 100 }, refreshKey);
  const reload = history.reload;
  const entries = history.data ?? [];
  return (
    <section className="panel history" aria-labelledby="history-heading">
      <div className="row between wrap">
        <h3 id="history-heading">{t('ask.history')}</h3>
        <button
          type="button"
          disabled={!entries.length}
          onClick={() => downloadText(`polyhop-${kb}-history.md`, historyMarkdown(kb, entries, t('ask.history')))}
          data-testid="history-export"
        >
          {t('ask.exportMarkdown')}
        </button>
      </div>
      <label>
        <span>{t('ask.searchHistory')}</span>
        <input type="search" value={input} onChange={(e) => setInput(e.target.value)} data-testid="history-search" />
      </label>
      {history.status === 'loading' && !history.data && <Loading />}
      {history.status === 'error' && <ErrorView error={history.error} onRetry={reload} compact />}
      {history.status === 'ready' && entries.length === 0 && (
        <Empty
          title={search ? t('ask.historyNoMatch') : t('ask.historyEmpty')}
          hint={search ? undefined : t('ask.historyEmptyHint')}
          testId="history-empty"
        />
      )}
      <ul className="history-list" data-testid="history-list">
        {entries.map((entry) => (
          <li key={entry.id} data-testid="history-item">
            <button type="button" className="link" onClick={() => onShow(entry)} data-testid="history-show">
              {entry.answer.question}
            </button>
            <span className="muted small">
              {' '}
              {formatDate(entry.askedAt)} · {entry.answer.strategy}
            </span>
            {entry.stale && (
              <span
                className="error-text small"
                role="note"
                data-testid="history-stale"
                data-reason={entry.stale.reason}
              >
                {' '}
                {t(`threads.stale.${entry.stale.reason}`, { document: entry.stale.documentTitle })}
              </span>
            )}
            <button
              type="button"
              className="small-button"
              onClick={() => onReask(entry)}
              aria-label={t('ask.reaskLabel', { question: entry.answer.question })}
              data-testid="history-reask"
            >
              {t('ask.reask')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
