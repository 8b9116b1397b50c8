import { useTranslation } from 'react-i18next';
import type { Settings } from '../../../api/index.js';
import { ErrorView, Loading } from '../../components/StateViews.js';
import { useApi } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';

/** The papers' absolute thresholds (MDER-DR chunking and merging, DaPT τ). */
const PAPER = { chunking: 0.75, merge: 0.95, fusion: 0.8 };

/** What the thresholds are for the open KB under the chosen mode, and how they were fitted. */
export function CalibrationPanel({ mode }: { mode: Settings['thresholds'] }) {
  const { t } = useTranslation();
  const kb = useApp((s) => s.kb);
  const info = useApi('kb:info', kb ? { kb } : null);
  if (!kb) return <p className="muted small">{t('settings.calibration.noKb')}</p>;
  if (info.status === 'error') return <ErrorView error={info.error} onRetry={info.reload} compact />;
  if (!info.data) return <Loading />;
  const c = info.data.calibration;
  const f = (x: number) => x.toFixed(3);
  const calibrated = mode === 'calibrated';
  return (
    <div data-testid="settings-calibration">
      <table className="compact">
        <caption>{t('settings.calibration.caption', { kb })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('settings.calibration.threshold')}</th>
            <th scope="col">{t('settings.calibration.inUse')}</th>
            <th scope="col">{t('settings.calibration.paper')}</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">{t('settings.calibration.chunking')}</th>
            <td>{calibrated ? t('settings.calibration.percentile') : f(PAPER.chunking)}</td>
            <td>{f(PAPER.chunking)}</td>
          </tr>
          <tr>
            <th scope="row">{t('settings.calibration.merge')}</th>
            <td data-testid="settings-calibration-merge">
              {calibrated && c ? `${f(c.mergeThreshold)} (p${(c.mergePercentile * 100).toFixed(2)})` : f(PAPER.merge)}
            </td>
            <td>{f(PAPER.merge)}</td>
          </tr>
          <tr>
            <th scope="row">{t('settings.calibration.fusion')}</th>
            <td data-testid="settings-calibration-fusion">
              {calibrated && c ? f(c.fusionThreshold) : f(PAPER.fusion)}
            </td>
            <td>{f(PAPER.fusion)}</td>
          </tr>
        </tbody>
      </table>
      <p className="muted small">
        {c
          ? t('settings.calibration.measured', {
              embedder: c.embedder,
              date: new Date(c.calibratedAt).toLocaleString(),
              percentile: Math.round(c.percentile * 100),
              namePairs: c.names.pairs,
              nameMedian: f(c.names.p50),
              sentencePairs: c.sentences.pairs,
              sentenceMedian: f(c.sentences.p50),
            })
          : t('settings.calibration.none')}
      </p>
    </div>
  );
}
