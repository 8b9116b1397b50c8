import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A modal on the native <dialog>: focus trap, Escape to close, focus returns to the opener. */
export function Dialog({
  title,
  onClose,
  children,
  testId,
  wide = false,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId: string;
  wide?: boolean;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <header className="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button
          type="button"
          className="ghost"
          onClick={onClose}
          aria-label={t('common.close')}
          data-testid={`${testId}-close`}
        >
          ×
        </button>
      </header>
      <div className="dialog-body">{children}</div>
    </dialog>
  );
}

/** Asks before something irreversible, stating what will be lost. */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onCancel,
  pending = false,
}: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Dialog title={title} onClose={onCancel} testId="confirm-dialog">
      <div className="confirm-message">{message}</div>
      <div className="row end">
        <button type="button" onClick={onCancel} data-testid="confirm-cancel" autoFocus>
          {t('common.cancel')}
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending} data-testid="confirm-ok">
          {confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
