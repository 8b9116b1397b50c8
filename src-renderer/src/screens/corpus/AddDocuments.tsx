import { useState, type DragEvent, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type AddDocumentsResult } from '../../../api/index.js';
import { ErrorView } from '../../components/StateViews.js';
import { formatNumber, formatSeconds } from '../../lib/format.js';
import { toApiError } from '../../lib/errors.js';
import { useAction } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';

/** One absolute path per line (files or folders); the engine walks folders. */
export function parsePaths(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/\r?\n/)
        .map((line) => line.trim().replace(/^["']|["']$/g, ''))
        .filter(Boolean),
    ),
  ];
}

/** Keeps each path in sync with the KB; returns the ones that cannot be watched (files, gone) and why. */
async function watchFolders(kb: string, paths: readonly string[]): Promise<{ path: string; reason: string }[]> {
  const failed: { path: string; reason: string }[] = [];
  for (const path of paths) {
    await api()
      .call('watch:add', { kb, path, ignore: [] })
      .catch((error: unknown) => failed.push({ path, reason: toApiError(error).message }));
  }
  return failed;
}

export function AddDocuments({ kb, onAdded }: { kb: string; onAdded: () => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [keepInSync, setKeepInSync] = useState(false);
  const [result, setResult] = useState<AddDocumentsResult | null>(null);
  const [watchErrors, setWatchErrors] = useState<{ path: string; reason: string }[]>([]);
  const announce = useApp((s) => s.announce);
  const paths = parsePaths(text);
  const add = useAction(async () => {
    const res = await api().call('docs:add', { kb, paths });
    // Folders kept in sync are followed from now on; a file path cannot be watched and says so.
    const failed = keepInSync ? await watchFolders(kb, paths) : [];
    setResult(res);
    setWatchErrors(failed);
    setText('');
    announce(
      t('corpus.addedSummary', { added: res.added.length, unchanged: res.unchanged, errors: res.errors.length }),
    );
    void useApp.getState().refreshKbs();
    onAdded();
  });
  const [dropNote, setDropNote] = useState('');
  const append = (more: readonly string[]) =>
    setText((current) => [...new Set([...parsePaths(current), ...more])].join('\n'));
  // Dropped files give their paths only in the desktop window (preload's webUtils); a browser hides them.
  const drop = (e: DragEvent) => {
    e.preventDefault();
    const bridge = window.polyhop;
    if (!bridge?.pathForFile) return setDropNote(t('corpus.dropNeedsDesktop'));
    const dropped = [...e.dataTransfer.files].map((f) => bridge.pathForFile(f)).filter(Boolean);
    setDropNote('');
    append(dropped);
  };
  // Native pickers exist only in the desktop window; a browser cannot name paths on the engine's machine.
  const dialogs = window.polyhop?.dialogs;
  const choose = useAction(async (kind: 'files' | 'folder') => {
    if (!dialogs) return;
    const chosen = kind === 'files' ? await dialogs.chooseFiles() : await dialogs.chooseFolder();
    if (chosen) append(typeof chosen === 'string' ? [chosen] : chosen);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (paths.length) void add.run();
  };
  return (
    <form
      className="form panel"
      onSubmit={submit}
      onDragOver={(e) => e.preventDefault()}
      onDrop={drop}
      aria-labelledby="add-docs-heading"
    >
      <h3 id="add-docs-heading">{t('corpus.addDocuments')}</h3>
      <label>
        <span>{t('corpus.pathsLabel')}</span>
        <textarea
          rows={3}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={t('corpus.pathsPlaceholder')}
          aria-describedby="add-docs-hint"
          spellCheck={false}
          data-testid="docs-add-paths"
        />
      </label>
      {dialogs && (
        <div className="row wrap">
          <button
            type="button"
            onClick={() => void choose.run('files')}
            disabled={choose.pending}
            data-testid="docs-add-choose-files"
          >
            {t('corpus.chooseFiles')}
          </button>
          <button
            type="button"
            onClick={() => void choose.run('folder')}
            disabled={choose.pending}
            data-testid="docs-add-choose-folder"
          >
            {t('corpus.chooseFolder')}
          </button>
        </div>
      )}
      {choose.error && <ErrorView error={choose.error} compact />}
      <p id="add-docs-hint" className="muted small" data-testid="docs-add-hint">
        {t('corpus.pathsHint')} {dialogs ? t('corpus.dropHint') : t('corpus.pickersNeedDesktop')}
      </p>
      {dropNote && (
        <p className="muted small" role="status">
          {dropNote}
        </p>
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={keepInSync}
          onChange={(e) => setKeepInSync(e.target.checked)}
          data-testid="docs-add-watch"
        />
        <span>{t('corpus.watchToggle')}</span>
      </label>
      <button type="submit" disabled={!paths.length || add.pending} data-testid="docs-add-submit">
        {add.pending ? t('common.working') : t('corpus.addCount', { count: paths.length })}
      </button>
      {add.error && <ErrorView error={add.error} compact />}
      {result && (
        <div
          className="result"
          data-testid="docs-add-result"
          data-added={result.added.length}
          data-unchanged={result.unchanged}
          data-errors={result.errors.length}
        >
          <p>
            {t('corpus.addedSummary', {
              added: formatNumber(result.added.length),
              unchanged: formatNumber(result.unchanged),
              errors: formatNumber(result.errors.length),
            })}
          </p>
          {result.estimate && (
            <p className="muted small" data-testid="docs-add-estimate">
              {t('corpus.indexEstimate', {
                duration: formatSeconds(
                  result.estimate.rounded.hours * 3600 +
                    result.estimate.rounded.minutes * 60 +
                    result.estimate.rounded.seconds,
                ),
                gpu: result.estimate.gpu,
                model: result.estimate.model,
              })}
              {result.estimate.uncounted > 0 &&
                ` ${t('corpus.indexEstimateUncounted', { count: result.estimate.uncounted })}`}
            </p>
          )}
          {watchErrors.length > 0 && (
            <ul className="error-list" data-testid="docs-add-watch-errors">
              {watchErrors.map((e) => (
                <li key={e.path}>{t('corpus.watchFailed', { reason: e.reason })}</li>
              ))}
            </ul>
          )}
          {result.errors.length > 0 && (
            <ul className="error-list">
              {result.errors.map((e) => (
                <li key={e.path}>
                  <code>{e.path}</code>: {e.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
