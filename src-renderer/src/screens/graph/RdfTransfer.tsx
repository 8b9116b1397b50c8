import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, isAbsoluteIri, isKbName, RDF_FORMATS, type RdfFormat, type Request } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { TextField } from '../../components/TextField.js';
import { ErrorView } from '../../components/StateViews.js';
import { useAction } from '../../lib/useApi.js';
import { useApp } from '../../store/app.js';
import { useJobs } from '../../store/jobs.js';

const EXTENSIONS: Record<RdfFormat, string> = { turtle: 'ttl', ntriples: 'nt', nquads: 'nq', rdfxml: 'rdf' };

/** A title as a file name the save dialog can propose: no folder separators or control characters. */
function fileName(title: string): string {
  return (
    title
      .replace(/[/\\\p{Cc}]+/gu, ' ')
      .replace(/\.[^.\s]{1,8}$/, '')
      .replace(/^[.\s]+/, '')
      .trim()
      .slice(0, 100) || 'export'
  );
}

type ExportScope = 'all' | 'original' | 'document' | 'entity';

function ScopeOption(props: {
  value: ExportScope;
  scope: ExportScope;
  onPick: (scope: ExportScope) => void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <label className="check">
      <input
        type="radio"
        name="export-scope"
        checked={props.scope === props.value}
        onChange={() => props.onPick(props.value)}
        disabled={props.disabled}
        data-testid={`export-scope-${props.value}`}
      />
      <span>{props.label}</span>
    </label>
  );
}

/** The RDF format choice; with `autoLabel`, an empty first option leaves the format to the file's extension. */
function FormatSelect(props: {
  value: RdfFormat | '';
  onPick: (format: RdfFormat | '') => void;
  testId: string;
  autoLabel?: string;
}) {
  const { t } = useTranslation();
  return (
    <label>
      <span>{t('rdf.format')}</span>
      <select
        value={props.value}
        onChange={(e) => props.onPick(e.target.value as RdfFormat | '')}
        data-testid={props.testId}
      >
        {props.autoLabel !== undefined && <option value="">{props.autoLabel}</option>}
        {RDF_FORMATS.map((f) => (
          <option key={f} value={f}>
            {t(`rdf.formats.${f}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

function useJob(jobId: string | null) {
  return useJobs((s) => (jobId ? s.jobs[jobId] : undefined));
}

/** Export the whole KB, the statements an RDF import brought, the document open in Corpus, or the open entity's neighbourhood. */
export function ExportPanel({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const doc = useApp((s) => s.openDocument);
  const entity = useApp((s) => s.openEntity);
  const [scope, setScope] = useState<ExportScope>('all');
  const [hops, setHops] = useState(1);
  const [format, setFormat] = useState<RdfFormat>('turtle');
  const [outputPath, setOutputPath] = useState('');
  const [answers, setAnswers] = useState(false);
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useJob(jobId);
  const scopeValue: Request<'rdf:export'>['scope'] | null =
    scope === 'all' || scope === 'original'
      ? { kind: scope }
      : scope === 'document'
        ? doc
          ? { kind: 'document', documentId: doc.id }
          : null
        : entity
          ? { kind: 'entity', entityId: entity.id, hops }
          : null;
  const run = useAction(async () => {
    if (!scopeValue) return;
    const ref = await api().call('rdf:export', { kb, format, scope: scopeValue, answers, outputPath });
    useJobs.getState().track(ref.jobId, 'export', kb);
    setJobId(ref.jobId);
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (scopeValue && outputPath.trim()) void run.run();
  };
  // A save dialog exists only in the desktop window; browser mode types a path on the engine's machine.
  const dialogs = window.polyhop?.dialogs;
  const saveAs = useAction(async () => {
    const defaultName = scope === 'document' && doc ? doc.title : scope === 'entity' && entity ? entity.name : kb;
    const chosen = await dialogs?.chooseSavePath({ defaultName: fileName(defaultName), extension: EXTENSIONS[format] });
    if (chosen) setOutputPath(chosen);
  });
  return (
    <form className="panel form" onSubmit={submit} aria-labelledby="export-heading">
      <h3 id="export-heading">{t('rdf.export')}</h3>
      <fieldset>
        <legend>{t('rdf.scope')}</legend>
        <ScopeOption value="all" scope={scope} onPick={setScope} label={t('rdf.scopeAll', { kb })} />
        <ScopeOption value="original" scope={scope} onPick={setScope} label={t('rdf.scopeOriginal')} />
        <ScopeOption
          value="document"
          scope={scope}
          onPick={setScope}
          disabled={!doc}
          label={doc ? t('rdf.scopeDocument', { title: doc.title }) : t('rdf.scopeDocumentNone')}
        />
        <ScopeOption
          value="entity"
          scope={scope}
          onPick={setScope}
          disabled={!entity}
          label={entity ? t('rdf.scopeEntity', { name: entity.name }) : t('rdf.scopeEntityNone')}
        />
        {scope === 'entity' && (
          <label className="inline">
            <span>{t('graph.hops')}</span>
            <select value={hops} onChange={(e) => setHops(Number(e.target.value))} data-testid="export-hops">
              {[1, 2, 3].map((h) => (
                <option key={h}>{h}</option>
              ))}
            </select>
          </label>
        )}
      </fieldset>
      <label className="check">
        <input
          type="checkbox"
          checked={answers}
          onChange={(e) => setAnswers(e.target.checked)}
          data-testid="export-answers"
        />
        <span>{t('rdf.withAnswers')}</span>
      </label>
      <FormatSelect value={format} onPick={(f) => f && setFormat(f)} testId="export-format" />
      <TextField
        label={t('rdf.outputPath')}
        value={outputPath}
        onValue={setOutputPath}
        placeholder={`/home/me/${kb}.${EXTENSIONS[format]}`}
        spellCheck={false}
        required
        data-testid="export-path"
      />
      {dialogs && (
        <button type="button" onClick={() => void saveAs.run()} disabled={saveAs.pending} data-testid="export-save-as">
          {t('rdf.saveAs')}
        </button>
      )}
      {saveAs.error && <ErrorView error={saveAs.error} compact />}
      <p className="muted small" data-testid="export-hint">
        {t('rdf.outputHint')}
        {!dialogs && ` ${t('rdf.saveAsNeedsDesktop')}`}
      </p>
      <button
        type="submit"
        className="primary"
        disabled={!scopeValue || !outputPath.trim() || run.pending || job?.status === 'running'}
        data-testid="export-submit"
      >
        {t('rdf.exportButton')}
      </button>
      {run.error && <ErrorView error={run.error} compact />}
      {job && <JobPanel job={job} />}
      {job?.status === 'done' && (
        <p data-testid="export-done" role="status">
          {t('rdf.exported', { path: outputPath })}
        </p>
      )}
    </form>
  );
}

/** Import an RDF file as a new knowledge base: kb:create, then rdf:import. */
export function ImportPanel() {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [inputPath, setInputPath] = useState('');
  const [format, setFormat] = useState<RdfFormat | ''>('');
  const [baseIri, setBaseIri] = useState('');
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useJob(jobId);
  const nameOk = isKbName(name);
  const baseOk = baseIri.trim() === '' || isAbsoluteIri(baseIri.trim());
  const run = useAction(async () => {
    const kb = await api().call('kb:create', { name, description: t('rdf.importedFrom', { path: inputPath }) });
    const ref = await api().call('rdf:import', {
      kb: kb.name,
      inputPath,
      ...(format ? { format } : {}),
      ...(baseIri.trim() ? { baseIri: baseIri.trim() } : {}),
    });
    useJobs.getState().track(ref.jobId, 'import', kb.name);
    setJobId(ref.jobId);
  });
  // The KB list is refreshed once the import is done, not when its KB is created: with no KB open
  // the refresh selects the new KB and replaces this form, so the outcome goes to the status line
  // too. A failed import keeps the form and its error in view.
  const done = job?.status === 'done';
  useEffect(() => {
    if (!done) return;
    useApp.getState().announce(t('rdf.imported', { name }));
    void useApp.getState().refreshKbs();
  }, [done]); // eslint-disable-line react-hooks/exhaustive-deps -- once per finished import
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (nameOk && baseOk && inputPath.trim()) void run.run();
  };
  return (
    <form className="panel form" onSubmit={submit} aria-labelledby="import-heading">
      <h3 id="import-heading">{t('rdf.import')}</h3>
      <TextField
        label={t('rdf.newKbName')}
        value={name}
        onValue={setName}
        aria-invalid={name && !nameOk ? true : undefined}
        required
        data-testid="import-kb-name"
      />
      {name && !nameOk && <p className="error-text small">{t('corpus.kbNameRule')}</p>}
      <TextField
        label={t('rdf.inputPath')}
        value={inputPath}
        onValue={setInputPath}
        placeholder="/home/me/graph.ttl"
        spellCheck={false}
        required
        data-testid="import-path"
      />
      <FormatSelect value={format} onPick={setFormat} testId="import-format" autoLabel={t('rdf.formatAuto')} />
      <TextField
        label={t('rdf.baseIri')}
        value={baseIri}
        onValue={setBaseIri}
        placeholder="https://example.org/graph/"
        spellCheck={false}
        aria-invalid={baseOk ? undefined : true}
        data-testid="import-base"
      />
      <p className="muted small">{t('rdf.baseIriHint')}</p>
      <button
        type="submit"
        className="primary"
        disabled={!nameOk || !baseOk || !inputPath.trim() || run.pending || job?.status === 'running'}
        data-testid="import-submit"
      >
        {t('rdf.importButton')}
      </button>
      {run.error && <ErrorView error={run.error} compact />}
      {job && <JobPanel job={job} />}
      {job?.status === 'done' && (
        <p role="status" data-testid="import-done">
          {t('rdf.imported', { name })}{' '}
          <button type="button" className="link" onClick={() => useApp.getState().setKb(name)}>
            {t('rdf.openImported')}
          </button>
        </p>
      )}
    </form>
  );
}
