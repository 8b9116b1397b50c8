import { useCallback, useEffect, useMemo, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useShallow } from 'zustand/react/shallow';
import { STRATEGIES, type Answer, type StrategyName } from '../../../api/index.js';
import { ErrorView } from '../../components/StateViews.js';
import { formatSeconds } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { rememberedThread, useAsk, type AskOptions } from '../../store/ask.js';
import { useJobs } from '../../store/jobs.js';
import { RunView } from './AnswerView.js';
import { Conversation, FollowUpReview } from './Conversation.js';
import { HistoryPanel } from './HistoryPanel.js';
import { ThreadsPanel } from './ThreadsPanel.js';
import { AnswerLanguageSelect } from '../../components/AnswerLanguageSelect.js';

export function AskScreen({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const settings = useApp((s) => s.settings);
  const { question, runs, setQuestion, threadId, threadKb, pending } = useAsk();
  const [strategy, setStrategy] = useState<StrategyName>(settings?.defaultStrategy ?? 'dr');
  const [answerLanguage, setAnswerLanguage] = useState(settings?.answerLanguage ?? '');
  const [compare, setCompare] = useState(false);
  const [compared, setCompared] = useState<StrategyName[]>(['dr', 'hyp']);
  const [retrievalOnly, setRetrievalOnly] = useState(false);
  const estimates = useApi('qa:estimate', {});
  const running = useJobs((s) => runs.some((r) => r.jobId && s.jobs[r.jobId]?.status === 'running'));
  const [historyKey, setHistoryKey] = useState(0);
  const [threadsKey, setThreadsKey] = useState(0);
  const finished = useJobs(
    useShallow((s) =>
      runs.map((r) => {
        const job = r.jobId ? s.jobs[r.jobId] : undefined;
        return job?.status === 'done' ? (job.result as Answer | null) : null;
      }),
    ),
  );
  const shownTurns = useMemo(
    () => new Set([...finished, ...runs.map((r) => r.answer)].flatMap((a) => (a?.thread ? [a.thread.turnId] : []))),
    [finished, runs],
  );

  // Coming back to the screen: the answers filed meanwhile are read again in the conversation.
  useEffect(() => useAsk.getState().settleFiled(), []);

  // The thread this KB was last continued in, kept across reloads.
  useEffect(() => {
    if (useAsk.getState().threadKb !== kb) useAsk.getState().selectThread(kb, rememberedThread(kb));
  }, [kb]);

  useEffect(() => {
    if (running || !runs.some((r) => r.jobId)) return;
    setHistoryKey((n) => n + 1);
    for (const answer of finished) if (answer?.thread) useAsk.getState().filed(kb, answer);
    setThreadsKey((n) => n + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per finished set of runs
  }, [running, runs]);

  const options: AskOptions = { answerLanguage: answerLanguage || null, retrievalOnly };
  const ask = useAction((q: string, strategies: StrategyName[]) =>
    strategies.length === 1 && !compare
      ? useAsk.getState().askInThread(kb, q, strategies[0]!, options)
      : useAsk.getState().ask(kb, q, strategies, options),
  );
  // Asking again from the history runs the question on its own, outside the conversation.
  const reask = useAction((q: string, strategies: StrategyName[]) => useAsk.getState().ask(kb, q, strategies, options));
  const askPending = useAction((standalone: string, o: AskOptions) => useAsk.getState().askPending(standalone, o));
  const selectThread = useCallback((thread: number | null) => useAsk.getState().selectThread(kb, thread), [kb]);
  const inThread = threadKb === kb ? threadId : null;
  const cancel = useAction(() => useAsk.getState().cancel());
  const strategies = compare ? compared : [strategy];
  const canAsk = question.trim().length > 0 && strategies.length > 0 && !running && !ask.pending && !pending;

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
          <p className="muted small" data-testid="ask-thread-note">
            {compare ? t('threads.compareNote') : inThread === null ? t('threads.newNote') : t('threads.followUpNote')}
          </p>
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
          {!retrievalOnly && estimates.data && (
            <div className="muted small" data-testid="ask-estimate">
              {estimates.data
                .filter((e) => strategies.includes(e.strategy))
                .map((e) => (
                  <p key={e.strategy} data-strategy={e.strategy}>
                    {compare && `${t(`strategies.${e.strategy}`)}: `}
                    {t('ask.estimate', {
                      duration: formatSeconds(planned(e.rounded)),
                      upTo: formatSeconds(planned(e.reasoningRounded)),
                      gpu: e.gpu,
                      model: e.model,
                    })}
                  </p>
                ))}
            </div>
          )}
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
        {pending && pending.kb === kb && (
          <FollowUpReview
            key={`${pending.thread}:${pending.rewrite.followUp}`}
            pending={pending}
            options={options}
            busy={askPending.pending || running}
            onAsk={(standalone, o) => void askPending.run(standalone, o)}
            onDiscard={() => useAsk.getState().discardPending()}
          />
        )}
        {askPending.error && <ErrorView error={askPending.error} compact />}
        {inThread !== null && (
          <Conversation
            kb={kb}
            thread={inThread}
            refreshKey={threadsKey}
            hiddenTurns={shownTurns}
            onMissing={() => selectThread(null)}
          />
        )}
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
      <div className="stack">
        <ThreadsPanel
          kb={kb}
          selected={inThread}
          refreshKey={threadsKey}
          onSelect={selectThread}
          onChanged={(deleted) => {
            if (deleted) selectThread(null);
            else setThreadsKey((n) => n + 1);
          }}
        />
        <HistoryPanel
          kb={kb}
          refreshKey={historyKey}
          onShow={(entry) => useAsk.getState().show(entry.answer)}
          onReask={(entry) => {
            setQuestion(entry.answer.question);
            setCompare(false);
            setStrategy(entry.answer.strategy);
            void reask.run(entry.answer.question, [entry.answer.strategy]);
          }}
        />
      </div>
    </div>
  );
}

/** Seconds of a duration rounded for planning (QuestionEstimate.rounded). */
function planned(r: { hours: number; minutes: number; seconds: number }): number {
  return r.hours * 3600 + r.minutes * 60 + r.seconds;
}
