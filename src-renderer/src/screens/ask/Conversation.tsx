import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AnswerStaleness, Thread } from '../../../api/index.js';
import { ErrorView, Loading } from '../../components/StateViews.js';
import { formatDate, formatNumber } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { useAsk, type AskOptions, type PendingFollowUp } from '../../store/ask.js';
import { AnswerBody } from './AnswerView.js';

/** The turns of a thread: the question as asked (and as answered), the short answer first, evidence and trace folded. */
export function Conversation({
  kb,
  thread,
  refreshKey,
  hiddenTurns,
  onMissing,
}: {
  kb: string;
  thread: number;
  refreshKey: number;
  /** Turns shown live below (their run card), not repeated here. */
  hiddenTurns: ReadonlySet<number>;
  onMissing: () => void;
}) {
  const view = useApi('threads:get', { kb, thread }, refreshKey);
  const { reload } = view;
  useEffect(() => {
    if (view.status === 'error' && view.error.code === 'NOT_FOUND') onMissing();
  }, [view.status, view.error, onMissing]);
  if (view.status === 'error' && view.error.code !== 'NOT_FOUND')
    return <ErrorView error={view.error} onRetry={reload} compact />;
  if (!view.data) return view.status === 'loading' ? <Loading /> : null;
  return <Turns kb={kb} thread={view.data} hiddenTurns={hiddenTurns} />;
}

function Turns({ kb, thread, hiddenTurns }: { kb: string; thread: Thread; hiddenTurns: ReadonlySet<number> }) {
  const { t } = useTranslation();
  const askAgain = useAction((turn: Thread['turns'][number]) =>
    useAsk.getState().askAgain(kb, thread.id, turn.standaloneQuestion, turn.answer?.strategy ?? 'dr'),
  );
  return (
    <section className="conversation stack" aria-labelledby="conversation-heading" data-testid="conversation">
      <h3 id="conversation-heading" data-testid="conversation-title">
        {thread.title}
      </h3>
      {thread.turns
        .filter((turn) => !hiddenTurns.has(turn.id))
        .map((turn) => (
          <article key={turn.id} className="panel turn" data-testid="thread-turn" data-position={turn.position}>
            <header>
              <p className="turn-question" data-testid="turn-question">
                <strong>{turn.question}</strong>
              </p>
              {turn.standaloneQuestion !== turn.question && (
                <p className="muted small" data-testid="turn-standalone">
                  {t('threads.askedAs', { question: turn.standaloneQuestion })}
                </p>
              )}
              <p className="muted small">
                {formatDate(turn.askedAt)}
                {turn.answer && ` · ${t(`strategies.${turn.answer.strategy}`)}`}
              </p>
            </header>
            {turn.stale && (
              <StaleNote stale={turn.stale} onAskAgain={() => void askAgain.run(turn)} busy={askAgain.pending} />
            )}
            {turn.answer ? (
              <AnswerBody kb={kb} answer={turn.answer} folded />
            ) : (
              <p className="muted">{t('threads.answerGone')}</p>
            )}
          </article>
        ))}
    </section>
  );
}

/** "Stale — ask again": a document the answer cites was re-indexed or removed since. */
export function StaleNote({
  stale,
  onAskAgain,
  busy,
}: {
  stale: AnswerStaleness;
  onAskAgain: () => void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  return (
    <p className="error-text small" role="note" data-testid="answer-stale" data-reason={stale.reason}>
      {t(`threads.stale.${stale.reason}`, { document: stale.documentTitle })}{' '}
      <button
        type="button"
        className="small-button"
        onClick={onAskAgain}
        disabled={busy}
        data-testid="answer-ask-again"
      >
        {t('threads.askAgain')}
      </button>
    </p>
  );
}

/** A follow-up's standalone rewrite, editable, before it is asked. */
export function FollowUpReview({
  pending,
  options,
  onAsk,
  onDiscard,
  busy,
}: {
  pending: PendingFollowUp;
  options: AskOptions;
  onAsk: (standalone: string, options: AskOptions) => void;
  onDiscard: () => void;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const { rewrite } = pending;
  const [text, setText] = useState(rewrite.standalone);
  return (
    <form
      className="panel form follow-up"
      data-testid="followup-review"
      data-how={rewrite.how}
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onAsk(text.trim(), options);
      }}
    >
      <p>
        <span className="muted small">{t('threads.followUp')}: </span>
        <span data-testid="followup-question">{rewrite.followUp}</span>
      </p>
      <label>
        <span>{t('threads.standalone')}</span>
        <textarea
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          maxLength={4000}
          lang={rewrite.language}
          data-testid="followup-standalone"
        />
      </label>
      <p className="muted small" data-testid="followup-how">
        {t(`threads.how.${rewrite.how}`)} ·{' '}
        {t('ask.stepStats', {
          calls: rewrite.step.llmCalls,
          prompt: formatNumber(rewrite.step.promptTokens),
          completion: formatNumber(rewrite.step.completionTokens),
          ms: formatNumber(rewrite.step.ms),
        })}
      </p>
      <div className="row">
        <button type="submit" className="primary" disabled={!text.trim() || busy} data-testid="followup-ask">
          {t('threads.askThis')}
        </button>
        <button type="button" onClick={onDiscard} data-testid="followup-discard">
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
