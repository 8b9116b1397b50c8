import { useTranslation } from 'react-i18next';
import type { DoctorReport } from '../../../api/index.js';
import { languageName } from '../../lib/languages.js';

/**
 * The languages OCR recognises in scans, chosen from those the engine has installed. `null`
 * (the default) is every installed language, and stays so when all boxes are ticked, so a
 * language installed later is used too; the last ticked box cannot be cleared.
 */
export function OcrLanguagesPanel({
  installed,
  value,
  onChange,
}: {
  installed: DoctorReport['ocrLanguages'];
  value: string[] | null;
  onChange: (value: string[] | null) => void;
}) {
  const { t, i18n } = useTranslation();
  const chosen = new Set(value ?? installed.map((l) => l.code));
  const toggle = (code: string, on: boolean) => {
    const next = installed.map((l) => l.code).filter((c) => (c === code ? on : chosen.has(c)));
    onChange(next.length === installed.length ? null : next);
  };
  return (
    <fieldset data-testid="settings-ocr-languages">
      <legend>{t('settings.ocrLanguages')}</legend>
      <p className="muted small">{t('settings.ocrLanguagesHint')}</p>
      <div className="check-list">
        {installed.map(({ code, tag }) => (
          <label key={code} className="check">
            <input
              type="checkbox"
              checked={chosen.has(code)}
              disabled={chosen.has(code) && chosen.size === 1}
              onChange={(e) => toggle(code, e.target.checked)}
              data-testid={`settings-ocr-${code}`}
            />
            <span>{tag ? `${languageName(tag, i18n.language)} (${code})` : code}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
