import { useTranslation } from 'react-i18next';
import { useAction } from '../lib/useApi.js';

/**
 * "Open in system viewer": the desktop window only (the preload's shell bridge); browser mode
 * has no such button, since the page must not reach the user's files.
 */
export function OpenInViewer({ kb, documentId }: { kb: string; documentId: number }) {
  const { t } = useTranslation();
  const shell = window.polyhop?.shell;
  const open = useAction(async () => {
    const result = await shell!.openDocument({ kb, documentId });
    if (!result.opened) throw new Error(result.error ?? t('ask.viewerFailed'));
    return result;
  });
  if (!shell) return null;
  return (
    <p>
      <button type="button" data-testid="open-in-viewer" onClick={() => void open.run()} disabled={open.pending}>
        {t('ask.openInViewer')}
      </button>
      {open.error && (
        <span className="muted small" role="alert" data-testid="open-in-viewer-error">
          {' '}
          {t('ask.viewerFailedReason', { reason: open.error.message })}
        </span>
      )}
    </p>
  );
}
