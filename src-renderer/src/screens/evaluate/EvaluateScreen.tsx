import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, STRATEGIES, type EvalReportView, type Request, type StrategyName } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { Markdown } from '../../components/Markdown.js';
import { Empty, ErrorView } from '../../components/StateViews.js';
import { useAction } from '../../lib/useApi.js';
import { useJobs } from '../../store/jobs.js';
import { TableScroll } from '../../components/TableScroll.js';
import { TextField } from '../../components/TextField.js';

type Format = Request<'eval:run'>['format'];
const FORMATS: Format[] = ['hotpotqa', '2wiki', 'musique', 'mse-kg', 'xquad', 'csv', 'jsonl'];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(4);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function Report({ report }: { report: EvalReportView }) {
  const { t } = useTranslation();
  const columns = [...new Set(report.rows.flatMap((r) => Object.keys(r)))];
  return (
    <section className="panel" aria-labelledby="report-heading" data-testid="eval-report">
      <h3 id="report-heading">{t('evaluate.report', { dir: report.outDir })}</h3>
      {report.markdown ? <Markdown text={report.markdown} /> : <p className="muted">{t('evaluate.noMarkdown')}</p>}
      <h4>{t('evaluate.rows', { count: report.rows.length })}</h4>
      {report.rows.length > 0 && (
        <TableScroll>
          <table data-testid="eval-rows">
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.rows.slice(0, 1000).map((r, i) => (
                <tr key={i}>
                  {columns.map((c) => (
                    <td key={c}>{cell(r[c])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}

export function EvaluateScreen() {
  const { t } = useTranslation();
  const [datasetPath, setDatasetPath] = useState('');
  const [format, setFormat] = useState<Format>('hotpotqa');
  const [strategies, setStrategies] = useState<StrategyName[]>(['dr', 'vector']);
  const [languages, setLanguages] = useState('en');
  const [limit, setLimit] = useState(20);
  const [outDir, setOutDir] = useState('');
  const [judgeModel, setJudgeModel] = useState('');
  const [similarityModel, setSimilarityModel] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const [report, setReport] = useState<EvalReportView | null>(null);
  const job = useJobs((s) => (jobId ? s.jobs[jobId] : undefined));
  const langs = languages.split(/[\s,]+/).filter(Boolean);
  const langsOk = langs.length > 0 && langs.every((l) => /^[a-z]{2,3}$/.test(l));

  const loadReport = useAction(async () => setReport(await api().call('eval:report', { outDir })));
  const run = useAction(async () => {
    setReport(null);
    const ref = await api().call('eval:run', {
      datasetPath,
      format,
      strategies,
      languages: langs,
      limit,
      outDir,
      ...(judgeModel.trim() ? { judgeModel: { path: judgeModel.trim() } } : {}),
      ...(similarityModel.trim() ? { similarityModel: { path: similarityModel.trim() } } : {}),
    });
    useJobs.getState().track(ref.jobId, 'eval', null);
    setJobId(ref.jobId);
  });
  const done = job?.status === 'done';
  useEffect(() => {
    if (done) void loadReport.run();
  }, [done]); // eslint-disable-line react-hooks/exhaustive-deps -- once per finished run

  const valid = datasetPath.trim() && outDir.trim() && strategies.length > 0 && langsOk;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (valid) void run.run();
  };
  return (
    <div className="stack">
      <h2>{t('evaluate.title')}</h2>
      <form className="panel form" onSubmit={submit} aria-labelledby="eval-form-heading">
        <h3 id="eval-form-heading">{t('evaluate.run')}</h3>
        <p className="muted small">{t('evaluate.hint')}</p>
        <TextField
          label={t('evaluate.dataset')}
          value={datasetPath}
          onValue={setDatasetPath}
          spellCheck={false}
          required
          placeholder="/data/hotpot_dev_distractor_v1.json"
          data-testid="eval-dataset"
        />
        <label>
          <span>{t('evaluate.format')}</span>
          <select value={format} onChange={(e) => setFormat(e.target.value as Format)} data-testid="eval-format">
            {FORMATS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="row wrap">
          <legend>{t('evaluate.strategies')}</legend>
          {STRATEGIES.map((s) => (
            <label key={s} className="check">
              <input
                type="checkbox"
                checked={strategies.includes(s)}
                onChange={(e) =>
                  setStrategies((list) => (e.target.checked ? [...list, s] : list.filter((x) => x !== s)))
                }
                data-testid={`eval-strategy-${s}`}
              />
              <span>{t(`strategies.${s}`)}</span>
            </label>
          ))}
        </fieldset>
        <div className="row wrap">
          <label className="inline">
            <span>{t('evaluate.languages')}</span>
            <input
              value={languages}
              onChange={(e) => setLanguages(e.target.value)}
              aria-invalid={langsOk ? undefined : true}
              aria-describedby="eval-lang-hint"
              data-testid="eval-languages"
            />
          </label>
          <label className="inline">
            <span>{t('evaluate.limit')}</span>
            <input
              type="number"
              min={1}
              max={100000}
              value={limit}
              onChange={(e) => setLimit(Math.max(1, Number(e.target.value) || 1))}
              data-testid="eval-limit"
            />
          </label>
        </div>
        <p id="eval-lang-hint" className={langsOk ? 'muted small' : 'error-text small'}>
          {t('evaluate.languagesHint')}
        </p>
        <TextField
          label={t('evaluate.judgeModel')}
          value={judgeModel}
          onValue={setJudgeModel}
          spellCheck={false}
          placeholder="/models/judge.gguf"
          data-testid="eval-judge-model"
        />
        <TextField
          label={t('evaluate.similarityModel')}
          value={similarityModel}
          onValue={setSimilarityModel}
          spellCheck={false}
          placeholder="/models/all-MiniLM-L6-v2"
          data-testid="eval-similarity-model"
        />
        <TextField
          label={t('evaluate.outDir')}
          value={outDir}
          onValue={setOutDir}
          spellCheck={false}
          required
          placeholder="/home/me/polyhop-eval"
          data-testid="eval-outdir"
        />
        <div className="row">
          <button
            type="submit"
            className="primary"
            disabled={!valid || run.pending || job?.status === 'running'}
            data-testid="eval-run"
          >
            {t('evaluate.start')}
          </button>
          {job?.status === 'running' && (
            <button
              type="button"
              className="danger"
              onClick={() => void api().call('jobs:cancel', { jobId: job.jobId })}
              data-testid="eval-cancel"
            >
              {t('common.cancel')}
            </button>
          )}
          <button
            type="button"
            onClick={() => void loadReport.run()}
            disabled={!outDir.trim() || loadReport.pending}
            data-testid="eval-load-report"
          >
            {t('evaluate.loadReport')}
          </button>
        </div>
        {(run.error ?? loadReport.error) && <ErrorView error={(run.error ?? loadReport.error)!} compact />}
      </form>
      {job && <JobPanel job={job} />}
      {report ? (
        <Report report={report} />
      ) : (
        !job && <Empty title={t('evaluate.empty')} hint={t('evaluate.emptyHint')} testId="eval-empty" />
      )}
    </div>
  );
}
