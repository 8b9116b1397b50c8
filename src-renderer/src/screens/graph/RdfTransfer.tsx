import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, isAbsoluteIri, isKbName, RDF_FORMATS, type RdfFormat, type Request } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
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

function useJob(jobId: string | null) {
  return useJobs((s) => (jobId ? s.jobs[jobId] : undefined));
}

/** Export the whole KB, the statements an RDF import brought, the document open in Corpus, or the open entity's neighbourhood. */
export function ExportPanel({ kb }: { kb: string }) {
  const { t } = useTranslation();
  const doc = useApp((s) => s.openDocument);
  const entity = useApp((s) => s.openEntity);
  const [scope, setScope] = useState<'all' | 'original' | 'document' | 'entity'>('all');
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
        <label className="check">
          <input
            type="radio"
            name="export-scope"
            checked={scope === 'all'}
            onChange={() => setScope('all')}
            data-testid="export-scope-all"
          />
          <span>{t('rdf.scopeAll', { kb })}</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name="export-scope"
            checked={scope === 'original'}
            onChange={() => setScope('original')}
            data-testid="export-scope-original"
          />
          <span>{t('rdf.scopeOriginal')}</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name="export-scope"
            checked={scope === 'document'}
            onChange={() => setScope('document')}
            disabled={!doc}
            data-testid="export-scope-document"
          />
          <span>{doc ? t('rdf.scopeDocument', { title: doc.title }) : t('rdf.scopeDocumentNone')}</span>
        </label>
        <label className="check">
          <input
            type="radio"
            name="export-scope"
            checked={scope === 'entity'}
            onChange={() => setScope('entity')}
            disabled={!entity}
            data-testid="export-scope-entity"
          />
          <span>{entity ? t('rdf.scopeEntity', { name: entity.name }) : t('rdf.scopeEntityNone')}</span>
        </label>
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
      <label>
        <span>{t('rdf.format')}</span>
        <select value={format} onChange={(e) => setFormat(e.target.value as RdfFormat)} data-testid="export-format">
          {RDF_FORMATS.map((f) => (
            <option key={f} value={f}>
              {t(`rdf.formats.${f}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('rdf.outputPath')}</span>
        <input
          value={outputPath}
          onChange={(e) => setOutputPath(e.target.value)}
          placeholder={`/home/me/${kb}.${EXTENSIONS[format]}`}
          spellCheck={false}
          required
          data-testid="export-path"
        />
      </label>
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
    await useApp.getState().refreshKbs();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (nameOk && baseOk && inputPath.trim()) void run.run();
  };
  return (
    <form className="panel form" onSubmit={submit} aria-labelledby="import-heading">
      <h3 id="import-heading">{t('rdf.import')}</h3>
      <label>
        <span>{t('rdf.newKbName')}</span>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={name && !nameOk ? true : undefined}
          required
          data-testid="import-kb-name"
        />
      </label>
      {name && !nameOk && <p className="error-text small">{t('corpus.kbNameRule')}</p>}
      <label>
        <span>{t('rdf.inputPath')}</span>
        <input
          value={inputPath}
          onChange={(e) => setInputPath(e.target.value)}
          placeholder="/home/me/graph.ttl"
          spellCheck={false}
          required
          data-testid="import-path"
        />
      </label>
      <label>
        <span>{t('rdf.format')}</span>
        <select
          value={format}
          onChange={(e) => setFormat(e.target.value as RdfFormat | '')}
          data-testid="import-format"
        >
          <option value="">{t('rdf.formatAuto')}</option>
          {RDF_FORMATS.map((f) => (
            <option key={f} value={f}>
              {t(`rdf.formats.${f}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('rdf.baseIri')}</span>
        <input
          value={baseIri}
          onChange={(e) => setBaseIri(e.target.value)}
          placeholder="https://example.org/graph/"
          spellCheck={false}
          aria-invalid={baseOk ? undefined : true}
          data-testid="import-base"
        />
      </label>
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
