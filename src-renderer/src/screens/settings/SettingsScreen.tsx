import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { STRATEGIES, type Settings, type StrategyName } from '../../../api/index.js';
import { ErrorView, Loading } from '../../components/StateViews.js';
import { UI_LANGUAGES, setUiLanguage } from '../../i18n.js';
import { languageName } from '../../lib/languages.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { useApp, type Theme } from '../../store/app.js';
import { AnswerLanguageSelect } from '../../components/AnswerLanguageSelect.js';
import { CalibrationPanel } from './CalibrationPanel.js';
import { OcrLanguagesPanel } from './OcrLanguagesPanel.js';
import { ReasoningPanel } from './ReasoningPanel.js';

const PARAM_KEY = /^[A-Za-z][\w.-]{0,99}$/;

/** UI language and theme apply at once (and are kept locally); the rest is saved to the engine. */
export function SettingsScreen() {
  const { t } = useTranslation();
  const settings = useApp((s) => s.settings);
  const settingsError = useApp((s) => s.settingsError);
  const theme = useApp((s) => s.theme);
  const doctor = useApi('system:doctor', {});
  const [draft, setDraft] = useState<Settings | null>(settings);
  const [params, setParams] = useState<{ key: string; value: string }[]>([]);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!settings) return;
    setDraft(settings);
    setParams(Object.entries(settings.strategyParams).map(([key, value]) => ({ key, value: String(value) })));
  }, [settings]);

  const paramsOk = params.every(
    (p) => PARAM_KEY.test(p.key) && p.value.trim() !== '' && Number.isFinite(Number(p.value)),
  );
  const save = useAction(async () => {
    if (!draft) return;
    const strategyParams = Object.fromEntries(params.map((p) => [p.key, Number(p.value)]));
    await useApp.getState().saveSettings({ ...draft, theme, uiLanguage: draft.uiLanguage, strategyParams });
    setSaved(true);
    useApp.getState().announce(t('settings.saved'));
  });
  const update = (patch: Partial<Settings>) => {
    setSaved(false);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (paramsOk) void save.run();
  };

  return (
    <div className="stack">
      <h2>{t('settings.title')}</h2>
      <section className="panel form" aria-labelledby="appearance-heading">
        <h3 id="appearance-heading">{t('settings.appearance')}</h3>
        <label>
          <span>{t('settings.uiLanguage')}</span>
          <select
            value={draft?.uiLanguage ?? localStorage.getItem('polyhop.uiLanguage') ?? ''}
            onChange={(e) => {
              const value = e.target.value || null;
              update({ uiLanguage: value });
              void setUiLanguage(value);
            }}
            data-testid="settings-ui-language"
          >
            <option value="">{t('settings.followSystem')}</option>
            {UI_LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {languageName(l, l)}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>{t('settings.theme')}</legend>
          {(['system', 'light', 'dark'] as Theme[]).map((th) => (
            <label key={th} className="check">
              <input
                type="radio"
                name="theme"
                checked={theme === th}
                onChange={() => {
                  useApp.getState().setTheme(th);
                  update({ theme: th });
                }}
                data-testid={`settings-theme-${th}`}
              />
              <span>{t(`settings.themes.${th}`)}</span>
            </label>
          ))}
        </fieldset>
      </section>

      {settingsError && <ErrorView error={settingsError} onRetry={() => void useApp.getState().loadSettings()} />}
      {!settings && !settingsError && <Loading />}
      {draft && (
        <form className="panel form" onSubmit={submit} aria-labelledby="engine-settings-heading">
          <h3 id="engine-settings-heading">{t('settings.answering')}</h3>
          <label>
            <span>{t('settings.defaultStrategy')}</span>
            <select
              value={draft.defaultStrategy}
              onChange={(e) => update({ defaultStrategy: e.target.value as StrategyName })}
              data-testid="settings-strategy"
            >
              {STRATEGIES.map((s) => (
                <option key={s} value={s}>
                  {t(`strategies.${s}`)}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{t('settings.answerLanguage')}</span>
            <AnswerLanguageSelect
              value={draft.answerLanguage ?? ''}
              onChange={(l) => update({ answerLanguage: l || null })}
              testId="settings-answer-language"
            />
          </label>
          <label>
            <span>{t('settings.concurrency')}</span>
            <input
              type="number"
              min={1}
              max={64}
              value={draft.concurrency}
              onChange={(e) => update({ concurrency: Math.max(1, Number(e.target.value) || 1) })}
              data-testid="settings-concurrency"
            />
          </label>
          <fieldset>
            <legend>{t('settings.thresholds')}</legend>
            <select
              value={draft.thresholds}
              onChange={(e) => update({ thresholds: e.target.value as Settings['thresholds'] })}
              aria-label={t('settings.thresholds')}
              data-testid="settings-thresholds"
            >
              <option value="calibrated">{t('settings.thresholdModes.calibrated')}</option>
              <option value="paper">{t('settings.thresholdModes.paper')}</option>
            </select>
            <CalibrationPanel mode={draft.thresholds} />
          </fieldset>
          <ReasoningPanel policy={draft.reasoning} onChange={(reasoning) => update({ reasoning })} />
          {doctor.data && (
            <OcrLanguagesPanel
              installed={doctor.data.ocrLanguages}
              value={draft.ocrLanguages}
              onChange={(ocrLanguages) => update({ ocrLanguages })}
            />
          )}
          <fieldset>
            <legend>{t('settings.strategyParams')}</legend>
            <p className="muted small">{t('settings.strategyParamsHint')}</p>
            {params.length === 0 && <p className="muted">{t('settings.noParams')}</p>}
            {params.map((p, i) => (
              <div key={i} className="row wrap param-row" data-testid="settings-param">
                <label className="inline">
                  <span>{t('settings.paramName')}</span>
                  <input
                    value={p.key}
                    aria-invalid={PARAM_KEY.test(p.key) ? undefined : true}
                    onChange={(e) => {
                      setSaved(false);
                      setParams((list) => list.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)));
                    }}
                  />
                </label>
                <label className="inline">
                  <span>{t('settings.paramValue')}</span>
                  <input
                    inputMode="decimal"
                    value={p.value}
                    aria-invalid={Number.isFinite(Number(p.value)) && p.value.trim() !== '' ? undefined : true}
                    onChange={(e) => {
                      setSaved(false);
                      setParams((list) => list.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)));
                    }}
                  />
                </label>
                <button
                  type="button"
                  onClick={() => setParams((list) => list.filter((_, j) => j !== i))}
                  aria-label={t('settings.removeParam', { name: p.key })}
                >
                  {t('common.remove')}
                </button>
              </div>
            ))}
            <button
              type="button"
              onClick={() => setParams((list) => [...list, { key: '', value: '' }])}
              data-testid="settings-add-param"
            >
              {t('settings.addParam')}
            </button>
          </fieldset>
          <div className="row">
            <button type="submit" className="primary" disabled={!paramsOk || save.pending} data-testid="settings-save">
              {t('common.save')}
            </button>
            {saved && (
              <span role="status" data-testid="settings-saved">
                {t('settings.saved')}
              </span>
            )}
          </div>
          {save.error && <ErrorView error={save.error} compact />}
        </form>
      )}

      <section className="panel" aria-labelledby="data-heading">
        <h3 id="data-heading">{t('settings.dataDirectory')}</h3>
        {doctor.data ? (
          <p className="break" data-testid="settings-data-dir">
            <code>{doctor.data.dataDir.path}</code> {doctor.data.dataDir.writable ? '' : `(${t('models.notWritable')})`}
          </p>
        ) : doctor.status === 'error' ? (
          <ErrorView error={doctor.error} onRetry={doctor.reload} compact />
        ) : (
          <Loading />
        )}
        <p className="muted small">{t('settings.dataDirHint')}</p>
      </section>
    </div>
  );
}
