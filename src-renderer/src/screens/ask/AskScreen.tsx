import { useEffect, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { STRATEGIES, type StrategyName } from '../../../api/index.js';
import { ErrorView } from '../../components/StateViews.js';
import { useAction } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { useAsk } from '../../store/ask.js';
import { useJobs } from '../../store/jobs.js';
import { RunView } from './AnswerView.js';
import { HistoryPanel } from './HistoryPanel.js';
import { AnswerLanguageSelect } from '../../components/AnswerLanguageSelect.js';

export function AskScreen({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const settings = useApp((s) => s.settings);
  const { question, runs, setQuestion } = useAsk();
  const [strategy, setStrategy] = useState<StrategyName>(settings?.defaultStrategy ?? 'dr');
  const [answerLanguage, setAnswerLanguage] = useState(settings?.answerLanguage ?? '');
  const [compare, setCompare] = useState(false);
  const [compared, setCompared] = useState<StrategyName[]>(['dr', 'hyp']);
  const [retrievalOnly, setRetrievalOnly] = useState(false);
  const running = useJobs((s) => runs.some((r) => r.jobId && s.jobs[r.jobId]?.status === 'running'));
  const [historyKey, setHistoryKey] = useState(0);

  useEffect(() => {
    if (!running && runs.some((r) => r.jobId)) setHistoryKey((n) => n + 1);
  }, [running, runs]);

  const ask = useAction((q: string, strategies: StrategyName[]) =>
    useAsk.getState().ask(kb, q, strategies, answerLanguage || null, retrievalOnly),
  );
  const cancel = useAction(() => useAsk.getState().cancel());
  const strategies = compare ? compared : [strategy];
  const canAsk = question.trim().length > 0 && strategies.length > 0 && !running && !ask.pending;

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (canAsk) void ask.run(question.trim(), strategies);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit();
  };

  return (
    <div className="screen-grid ask">
      <div className="stack">
        <form className="panel form" onSubmit={submit} aria-labelledby="ask-heading">
          <h2 id="ask-heading">{t('ask.title', { kb })}</h2>
          <label>
            <span>{t('ask.question')}</span>
            <textarea
              rows={3}
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              onKeyDown={onKeyDown}
              placeholder={t('ask.questionPlaceholder')}
              maxLength={4000}
              data-testid="ask-question"
            />
          </label>
          <div className="row wrap">
            {!compare && (
              <label className="inline">
                <span>{t('ask.strategy')}</span>
                <select
                  value={strategy}
                  onChange={(e) => setStrategy(e.target.value as StrategyName)}
                  data-testid="ask-strategy"
                >
                  {STRATEGIES.map((s) => (
                    <option key={s} value={s}>
                      {t(`strategies.${s}`)}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <label className="inline">
              <span>{t('ask.answerLanguage')}</span>
              <AnswerLanguageSelect value={answerLanguage} onChange={setAnswerLanguage} testId="ask-language" />
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={compare}
                onChange={(e) => setCompare(e.target.checked)}
                data-testid="ask-compare-toggle"
              />
              <span>{t('ask.compare')}</span>
            </label>
            <label className="check">
              <input
                type="checkbox"
                checked={retrievalOnly}
                onChange={(e) => setRetrievalOnly(e.target.checked)}
                data-testid="ask-retrieval-only"
              />
              <span>{t('ask.retrievalOnly')}</span>
            </label>
          </div>
          {compare && (
            <fieldset className="row wrap">
              <legend>{t('ask.compareWith')}</legend>
              {STRATEGIES.map((s) => (
                <label key={s} className="check">
                  <input
                    type="checkbox"
                    checked={compared.includes(s)}
                    onChange={(e) =>
                      setCompared((list) => (e.target.checked ? [...list, s] : list.filter((x) => x !== s)))
                    }
                    data-testid={`ask-compare-${s}`}
                  />
                  <span>{t(`strategies.${s}`)}</span>
                </label>
              ))}
            </fieldset>
          )}
          <div className="row">
            <button type="submit" className="primary" disabled={!canAsk} data-testid="ask-submit">
              {t('ask.ask')}
            </button>
            <button
              type="button"
              onClick={() => void cancel.run()}
              disabled={!running || cancel.pending}
              data-testid="ask-cancel"
            >
              {t('common.cancel')}
            </button>
            <span className="muted small">{t('ask.shortcut')}</span>
          </div>
          {(ask.error ?? cancel.error) && <ErrorView error={(ask.error ?? cancel.error)!} compact />}
        </form>
        {runs.length === 0 ? (
          <p className="muted state-hint" data-testid="ask-empty">
            {t('ask.emptyHint')}
          </p>
        ) : (
          <div className={runs.length > 1 ? 'runs compare' : 'runs'} data-testid="ask-runs">
            {runs.map((run) => (
              <RunView key={run.key} kb={kb} run={run} />
            ))}
          </div>
        )}
      </div>
      <HistoryPanel
        kb={kb}
        refreshKey={historyKey}
        onShow={(entry) => useAsk.getState().show(entry.answer)}
        onReask={(entry) => {
          setQuestion(entry.answer.question);
          setCompare(false);
          setStrategy(entry.answer.strategy);
          void ask.run(entry.answer.question, [entry.answer.strategy]);
        }}
      />
    </div>
  );
}
