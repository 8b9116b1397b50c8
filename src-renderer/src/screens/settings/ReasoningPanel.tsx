import { useTranslation } from 'react-i18next';
import type { Settings } from '../../../api/index.js';

type Policy = Settings['reasoning'];

/**
 * Which pipeline steps let a thinking model reason before its reply. The engine sends every step
 * resolved (its saved choice or its default), so the list is the engine's, not a copy of it here.
 */
export function ReasoningPanel({ policy, onChange }: { policy: Policy; onChange: (policy: Policy) => void }) {
  const { t } = useTranslation();
  const steps = Object.keys(policy) as (keyof Policy)[];
  return (
    <fieldset data-testid="settings-reasoning">
      <legend>{t('settings.reasoning')}</legend>
      <p className="muted small">{t('settings.reasoningHint')}</p>
      <div className="check-list">
        {steps.map((step) => (
          <label key={step} className="check">
            <input
              type="checkbox"
              checked={policy[step] === 'on'}
              onChange={(e) => onChange({ ...policy, [step]: e.target.checked ? 'on' : 'off' })}
              data-testid={`settings-reasoning-${step}`}
            />
            <span>{t(`settings.reasoningSteps.${step}`)}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
