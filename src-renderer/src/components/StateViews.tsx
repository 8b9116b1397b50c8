import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/index.js';

/** A busy indicator that screen readers announce once. */
export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="state state-loading" role="status" data-testid="state-loading">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('common.loading')}
    </div>
  );
}

/** An empty state: what is missing and what to do next. */
export function Empty({
  title,
  hint,
  action,
  testId = 'state-empty',
}: {
  title: string;
  hint?: string;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="state state-empty" data-testid={testId}>
      <p className="state-title">{title}</p>
      {hint && <p className="state-hint">{hint}</p>}
      {action}
    </div>
  );
}

const HINTED = new Set([
  'INVALID_REQUEST',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'CONFLICT',
  'BAD_INPUT',
  'MODEL_ERROR',
  'LLM_OUTPUT_INVALID',
  'UNSUPPORTED',
  'NETWORK_BLOCKED',
  'TIMEOUT',
  'STORAGE_FULL',
  'UNAUTHORIZED',
  'UNREACHABLE',
  'INTERNAL',
]);

/** The localised "what to do next" for an error code. */
export function useErrorHint(code: string): string {
  const { t } = useTranslation();
  return t(`errors.${HINTED.has(code) ? code : 'INTERNAL'}`);
}

/** An error: what happened (the engine's message), what to do, and a retry when one makes sense. */
export function ErrorView({
  error,
  onRetry,
  compact = false,
}: {
  error: ApiError;
  onRetry?: () => void;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  const hint = useErrorHint(error.code);
  const where = [error.details.line, error.details.column].every((v) => typeof v === 'number')
    ? t('common.atPosition', { line: error.details.line, column: error.details.column })
    : null;
  return (
    <div
      className={compact ? 'state state-error compact' : 'state state-error'}
      role="alert"
      data-testid="error-view"
      data-code={error.code}
    >
      <p className="state-title">
        <span className="error-code">{error.code}</span> {error.message}
      </p>
      {where && <p data-testid="error-position">{where}</p>}
      <p className="state-hint">{hint}</p>
      {onRetry && (
        <button type="button" onClick={onRetry} data-testid="error-retry">
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
