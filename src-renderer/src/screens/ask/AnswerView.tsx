import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, type Answer, type Citation, type Evidence, type TraceStep } from '../../../api/index.js';
import { JsonTree } from '../../components/JsonTree.js';
import { PassageDialog } from '../../components/PassageDialog.js';
import { ErrorView } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import type { AskRun } from '../../store/ask.js';
import { useJobs } from '../../store/jobs.js';

function CitationLink({ citation, onOpen }: { citation: Citation; onOpen: (c: Citation) => void }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className="citation"
      onClick={() => onOpen(citation)}
      data-testid="citation-link"
      data-document-id={citation.documentId}
      data-chunk-id={citation.chunkId}
      data-start={citation.startOffset}
      data-end={citation.endOffset}
    >
      {citation.documentTitle}
      {citation.page !== null && `, ${t('ask.page', { page: citation.page })}`}
    </button>
  );
}

function EvidencePanel({ evidence, onOpen }: { evidence: Evidence[]; onOpen: (c: Citation) => void }) {
  const { t } = useTranslation();
  if (evidence.length === 0) return <p className="muted">{t('ask.noEvidence')}</p>;
  return (
    <ol className="evidence" data-testid="evidence-list">
      {evidence.map((e, i) => (
        <li key={i} className={`evidence-item kind-${e.kind}`} data-testid="evidence-item" data-kind={e.kind}>
          <p className="small muted">
            <span className="badge">{t(`ask.evidenceKind.${e.kind}`)}</span> {e.label} ·{' '}
            {t('ask.score', { score: formatNumber(e.score, 3) })}
          </p>
          <p>{e.text}</p>
          {e.citations.length > 0 && (
            <p className="citations">
              {t('ask.sources')}{' '}
              {e.citations.map((c, j) => (
                <CitationLink key={j} citation={c} onOpen={onOpen} />
              ))}
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}

function TraceView({ trace }: { trace: TraceStep[] }) {
  const { t } = useTranslation();
  if (trace.length === 0) return <p className="muted">{t('ask.noTrace')}</p>;
  return (
    <ol className="trace" data-testid="trace">
      {trace.map((s, i) => (
        <li key={i} data-testid="trace-step">
          <details>
            <summary>
              <strong>{s.step}</strong>{' '}
              <span className="muted small">
                {t('ask.stepStats', {
                  calls: s.llmCalls,
                  prompt: formatNumber(s.promptTokens),
                  completion: formatNumber(s.completionTokens),
                  ms: formatNumber(s.ms),
                })}
              </span>
            </summary>
            <JsonTree value={s.detail} />
          </details>
        </li>
      ))}
    </ol>
  );
}

/** A finished answer: text, usage, evidence with citations, and the strategy's trace (`folded`: evidence closed too). */
export function AnswerBody({ kb, answer, folded = false }: { kb: string; answer: Answer; folded?: boolean }) {
  const { t } = useTranslation();
  const [citation, setCitation] = useState<Citation | null>(null);
  return (
    <>
      {answer.shortAnswer ? (
        <p className="short-answer" data-testid="short-answer" lang={answer.answerLanguage}>
          <span className="muted small">{t('ask.shortAnswer')}: </span>
          <strong>{answer.shortAnswer}</strong>
        </p>
      ) : null}
      <div className="answer-text" data-testid="answer-text" lang={answer.answerLanguage}>
        {answer.text}
      </div>
      {answer.retrievalOnly && <p className="muted small">{t('ask.retrievalOnlyNote')}</p>}
      <p className="muted small" data-testid="answer-usage">
        {t('ask.usage', {
          calls: answer.usage.llmCalls,
          prompt: formatNumber(answer.usage.promptTokens),
          completion: formatNumber(answer.usage.completionTokens),
          cache: answer.usage.cacheHits,
          ms: formatNumber(answer.usage.ms),
          from: answer.questionLanguage,
          to: answer.answerLanguage,
        })}
      </p>
      <details open={!folded} className="evidence-panel">
        <summary>
          <span className="summary-title">{t('ask.evidence', { count: answer.evidence.length })}</span>
        </summary>
        <EvidencePanel evidence={answer.evidence} onOpen={setCitation} />
      </details>
      <details className="trace-panel">
        <summary>
          <span className="summary-title">{t('ask.trace', { count: answer.trace.length })}</span>
        </summary>
        <TraceView trace={answer.trace} />
      </details>
      {citation && <PassageDialog kb={kb} citation={citation} onClose={() => setCitation(null)} />}
    </>
  );
}

/** One strategy's run: streams tokens while the job runs, then shows the answer. */
export function RunView({ kb, run }: { kb: string; run: AskRun }) {
  const { t } = useTranslation();
  const job = useJobs((s) => (run.jobId ? s.jobs[run.jobId] : undefined));
  const answer = run.answer ?? (job?.status === 'done' ? (job.result as Answer | null) : null);
  const status = run.answer ? 'done' : (job?.status ?? 'running');
  return (
    <article
      className="panel run"
      data-testid={`ask-run-${run.strategy}`}
      data-status={status}
      aria-labelledby={`${run.key}-title`}
    >
      <header className="row between">
        <h3 id={`${run.key}-title`}>{t(`strategies.${run.strategy}`)}</h3>
        <span className={`badge status-${status}`}>{t(`jobStatus.${status}`)}</span>
      </header>
      {status === 'running' && (
        <>
          <div className="answer-text streaming" aria-live="polite" aria-busy="true" data-testid="answer-stream">
            {job?.text || <span className="muted">{job?.latest?.message || t('ask.thinking')}</span>}
          </div>
          {job?.latest && (
            <p className="muted small">
              {t(`stages.${job.latest.stage}`, { defaultValue: job.latest.stage })} · {t('job.llmCalls')}:{' '}
              {job.latest.llmCalls}
            </p>
          )}
        </>
      )}
      {status === 'cancelled' && <p className="muted">{t('ask.cancelled')}</p>}
      {status === 'failed' && job?.error && <ErrorView error={new ApiError(job.error)} compact />}
      {answer && <AnswerBody kb={kb} answer={answer} />}
    </article>
  );
}
