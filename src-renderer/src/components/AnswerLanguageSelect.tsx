import { useTranslation } from 'react-i18next';
import { ANSWER_LANGUAGES, languageName } from '../lib/languages.js';

/** The answer-language choice ('' = the question's language), shared by Ask and Settings. */
export function AnswerLanguageSelect({
  value,
  onChange,
  testId,
}: {
  value: string;
  onChange: (language: string) => void;
  testId: string;
}) {
  const { t, i18n } = useTranslation();
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
      <option value="">{t('ask.sameAsQuestion')}</option>
      {ANSWER_LANGUAGES.map((l) => (
        <option key={l} value={l}>
          {languageName(l, i18n.language)}
        </option>
      ))}
    </select>
  );
}
