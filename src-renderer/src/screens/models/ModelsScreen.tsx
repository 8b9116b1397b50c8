import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type CatalogEntry, type ChatView, type ModelInfo, type ModelStatus } from '../../../api/index.js';
import { JobPanel } from '../../components/JobPanel.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { formatBytes, formatNumber } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { useJobs } from '../../store/jobs.js';
import { InferenceServers } from './InferenceServers.js';
import { TextField } from '../../components/TextField.js';

type Role = ModelStatus['role'];

/** The chat wrapper and whether the model reasons, as a `<dt>`/`<dd>` pair of a `meta` list. */
function ChatLine({ chat, testId }: { chat: ChatView; testId: string }) {
  const { t } = useTranslation();
  const how = !chat.reasons ? 'no' : chat.switchable ? 'switchable' : 'always';
  return (
    <>
      <dt>{t('models.chatWrapper')}</dt>
      <dd data-testid={testId} data-reasons={chat.reasons ? 'true' : 'false'}>
        {chat.wrapper}: {t(`models.chatReasoning.${how}`)}
      </dd>
    </>
  );
}

/** What a model file says about itself, read from its header without loading it (models:inspect). */
function FileInfo({ info }: { info: ModelInfo }) {
  const { t } = useTranslation();
  return (
    <dl className="meta" data-testid="model-inspect-result">
      <dt>{t('models.architecture')}</dt>
      <dd>
        {info.architecture}
        {info.quantisation && ` · ${info.quantisation}`}
      </dd>
      {info.contextLength !== undefined && (
        <>
          <dt>{t('models.contextSize')}</dt>
          <dd>{formatNumber(info.contextLength)}</dd>
        </>
      )}
      {info.chat && <ChatLine chat={info.chat} testId="model-inspect-chat" />}
    </dl>
  );
}

function StatusCard({ role, status, onUnloaded }: { role: Role; status: ModelStatus | null; onUnloaded: () => void }) {
  const { t } = useTranslation();
  const unload = useAction(async () => {
    await api().call('models:unload', { role });
    onUnloaded();
  });
  return (
    <article
      className="panel"
      data-testid={`model-status-${role}`}
      data-loaded={status ? 'true' : 'false'}
      aria-labelledby={`status-${role}`}
    >
      <h3 id={`status-${role}`}>{t(`models.role.${role}`)}</h3>
      {status ? (
        <>
          <p className="break">
            <strong>{status.identity}</strong>
          </p>
          <dl className="meta">
            <dt>{t('models.path')}</dt>
            <dd className="break">{status.path}</dd>
            <dt>{t('models.backend')}</dt>
            <dd>{status.backend}</dd>
            <dt>{t('models.gpuLayers')}</dt>
            <dd>
              {status.gpuLayers} / {status.totalLayers}
            </dd>
            {status.contextSize !== undefined && (
              <>
                <dt>{t('models.contextSize')}</dt>
                <dd>{formatNumber(status.contextSize)}</dd>
              </>
            )}
            {status.sequences !== undefined && (
              <>
                <dt>{t('models.sequences')}</dt>
                <dd>{status.sequences}</dd>
              </>
            )}
            {status.threads !== undefined && (
              <>
                <dt>{t('models.threads')}</dt>
                <dd>{status.threads}</dd>
              </>
            )}
            {status.dimension !== undefined && (
              <>
                <dt>{t('models.dimension')}</dt>
                <dd>{status.dimension}</dd>
              </>
            )}
            {status.chat && <ChatLine chat={status.chat} testId={`model-chat-${role}`} />}
          </dl>
          <p className="explanation" data-testid={`model-explanation-${role}`}>
            {status.explanation}
          </p>
          <button
            type="button"
            onClick={() => void unload.run()}
            disabled={unload.pending}
            data-testid={`model-unload-${role}`}
          >
            {t('models.unload')}
          </button>
          {unload.error && <ErrorView error={unload.error} compact />}
        </>
      ) : (
        <Empty title={t('models.notLoaded')} hint={t(`models.notLoadedHint.${role}`)} />
      )}
    </article>
  );
}

function LoadForm({ path, setPath, onLoaded }: { path: string; setPath: (p: string) => void; onLoaded: () => void }) {
  const { t } = useTranslation();
  const [role, setRole] = useState<Role>('generation');
  const [autoGpu, setAutoGpu] = useState(true);
  const [gpuLayers, setGpuLayers] = useState(0);
  const [contextSize, setContextSize] = useState('');
  const [threads, setThreads] = useState('');
  const [sequences, setSequences] = useState('');
  const [loaded, setLoaded] = useState<ModelStatus | null>(null);
  const [inspected, setInspected] = useState<ModelInfo | null>(null);
  const inspect = useAction(async () => setInspected(await api().call('models:inspect', { path })));
  const num = (s: string) => (s.trim() ? Number(s) : undefined);
  const load = useAction(async () => {
    const status = await api().call('models:load', {
      role,
      path,
      gpuLayers: autoGpu ? 'auto' : gpuLayers,
      ...(num(contextSize) ? { contextSize: num(contextSize) } : {}),
      ...(num(threads) ? { threads: num(threads) } : {}),
      ...(num(sequences) ? { sequences: num(sequences) } : {}),
    });
    setLoaded(status);
    onLoaded();
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) void load.run();
  };
  return (
    <form className="panel form" onSubmit={submit} aria-labelledby="load-heading">
      <h3 id="load-heading">{t('models.load')}</h3>
      <label>
        <span>{t('models.roleLabel')}</span>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="model-load-role">
          <option value="generation">{t('models.role.generation')}</option>
          <option value="embedding">{t('models.role.embedding')}</option>
        </select>
      </label>
      <TextField
        label={t('models.path')}
        value={path}
        onValue={setPath}
        spellCheck={false}
        required
        placeholder="/path/to/model.gguf"
        data-testid="model-load-path"
      />
      <div className="row wrap">
        <label className="check">
          <input
            type="checkbox"
            checked={autoGpu}
            onChange={(e) => setAutoGpu(e.target.checked)}
            data-testid="model-load-gpu-auto"
          />
          <span>{t('models.gpuAuto')}</span>
        </label>
        {!autoGpu && (
          <label className="inline">
            <span>{t('models.gpuLayers')}</span>
            <input
              type="number"
              min={0}
              value={gpuLayers}
              onChange={(e) => setGpuLayers(Math.max(0, Number(e.target.value) || 0))}
              data-testid="model-load-gpu-layers"
            />
          </label>
        )}
      </div>
      <div className="row wrap">
        <label className="inline">
          <span>{t('models.contextSize')}</span>
          <input
            type="number"
            min={512}
            step={512}
            value={contextSize}
            onChange={(e) => setContextSize(e.target.value)}
            placeholder={t('models.auto')}
            data-testid="model-load-context"
          />
        </label>
        <label className="inline">
          <span>{t('models.threads')}</span>
          <input
            type="number"
            min={1}
            value={threads}
            onChange={(e) => setThreads(e.target.value)}
            placeholder={t('models.auto')}
            data-testid="model-load-threads"
          />
        </label>
        <label className="inline">
          <span>{t('models.sequences')}</span>
          <input
            type="number"
            min={1}
            max={64}
            value={sequences}
            onChange={(e) => setSequences(e.target.value)}
            placeholder={t('models.auto')}
            data-testid="model-load-sequences"
          />
        </label>
      </div>
      <div className="row wrap">
        <button
          type="submit"
          className="primary"
          disabled={!path.trim() || load.pending}
          data-testid="model-load-submit"
        >
          {load.pending ? t('models.loading') : t('models.loadButton')}
        </button>
        <button
          type="button"
          onClick={() => void inspect.run()}
          disabled={!path.trim() || inspect.pending}
          data-testid="model-inspect"
        >
          {t('models.inspect')}
        </button>
      </div>
      {inspect.error && <ErrorView error={inspect.error} compact />}
      {/* The answer for the path in the field only: a new path voids the last inspection. */}
      {inspected && inspected.path === path && <FileInfo info={inspected} />}
      {load.error && <ErrorView error={load.error} compact />}
      {loaded && (
        <p className="explanation" role="status" data-testid="model-load-result">
          {loaded.explanation}
        </p>
      )}
    </form>
  );
}

function CatalogRow({ entry, onDone }: { entry: CatalogEntry; onDone: () => void }) {
  const { t } = useTranslation();
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useJobs((s) => (jobId ? s.jobs[jobId] : undefined));
  const download = useAction(async () => {
    const ref = await api().call('models:download', { catalogId: entry.id });
    useJobs.getState().track(ref.jobId, 'download', null);
    setJobId(ref.jobId);
  });
  const finished = job?.status === 'done';
  useEffect(() => {
    if (finished) onDone();
  }, [finished]); // eslint-disable-line react-hooks/exhaustive-deps -- once per finished download
  return (
    <li className="catalog-item" data-testid={`catalog-${entry.id}`}>
      <div className="row between wrap">
        <div>
          <strong>{entry.name}</strong> <span className="badge">{t(`models.role.${entry.role}`)}</span>
          {entry.tier && <span className="badge">{entry.tier}</span>}
          <p className="small muted">
            {formatBytes(entry.sizeBytes)} · {entry.licence} · {entry.languages.join(', ')}
            {entry.quantisation && ` · ${entry.quantisation}`}
          </p>
        </div>
        {entry.installed ? (
          <span className="badge status-done">{t('models.installed')}</span>
        ) : (
          <button
            type="button"
            onClick={() => void download.run()}
            disabled={download.pending || job?.status === 'running'}
            aria-label={t('models.downloadLabel', { name: entry.name })}
            data-testid={`catalog-download-${entry.id}`}
          >
            {t('models.download')}
          </button>
        )}
      </div>
      {download.error && <ErrorView error={download.error} compact />}
      {job && <JobPanel job={job} title={t('models.downloading', { name: entry.name })} />}
    </li>
  );
}

function TryIt() {
  const { t } = useTranslation();
  const [prompt, setPrompt] = useState('');
  const [maxTokens, setMaxTokens] = useState(128);
  const [reply, setReply] = useState<{
    text: string;
    promptTokens: number;
    completionTokens: number;
    ms: number;
  } | null>(null);
  const run = useAction(async () => setReply(await api().call('models:try', { prompt, maxTokens })));
  return (
    <form
      className="panel form"
      aria-labelledby="try-heading"
      onSubmit={(e) => {
        e.preventDefault();
        if (prompt.trim()) void run.run();
      }}
    >
      <h3 id="try-heading">{t('models.tryIt')}</h3>
      <label>
        <span>{t('models.prompt')}</span>
        <textarea rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="model-try-prompt" />
      </label>
      <label className="inline">
        <span>{t('models.maxTokens')}</span>
        <input
          type="number"
          min={1}
          max={4096}
          value={maxTokens}
          onChange={(e) => setMaxTokens(Math.min(4096, Math.max(1, Number(e.target.value) || 1)))}
        />
      </label>
      <button type="submit" disabled={!prompt.trim() || run.pending} data-testid="model-try-submit">
        {run.pending ? t('common.working') : t('models.generate')}
      </button>
      {run.error && <ErrorView error={run.error} compact />}
      {reply && (
        <div aria-live="polite" data-testid="model-try-result">
          <p className="answer-text">{reply.text}</p>
          <p className="muted small">
            {t('models.tryStats', {
              prompt: reply.promptTokens,
              completion: reply.completionTokens,
              ms: formatNumber(reply.ms),
            })}
          </p>
        </div>
      )}
    </form>
  );
}

function Doctor() {
  const { t } = useTranslation();
  const doctor = useApi('system:doctor', {});
  return (
    <section className="panel" aria-labelledby="doctor-heading" data-testid="doctor">
      <div className="row between">
        <h3 id="doctor-heading">{t('models.doctor')}</h3>
        <button
          type="button"
          onClick={doctor.reload}
          disabled={doctor.status === 'loading'}
          data-testid="doctor-refresh"
        >
          {t('common.refresh')}
        </button>
      </div>
      {doctor.status === 'loading' && !doctor.data && <Loading />}
      {doctor.status === 'error' && <ErrorView error={doctor.error} onRetry={doctor.reload} compact />}
      {doctor.data && (
        <>
          <dl className="meta">
            <dt>{t('models.backend')}</dt>
            <dd>{doctor.data.llama.backend}</dd>
            <dt>{t('models.gpu')}</dt>
            <dd>{doctor.data.llama.gpu || t('models.noGpu')}</dd>
            <dt>{t('models.modelsDir')}</dt>
            <dd className="break">{doctor.data.modelsDir}</dd>
            <dt>{t('models.dataDir')}</dt>
            <dd className="break">
              {doctor.data.dataDir.path} {doctor.data.dataDir.writable ? '' : `(${t('models.notWritable')})`}
            </dd>
            <dt>{t('models.network')}</dt>
            <dd className="break" data-testid="doctor-network">
              {doctor.data.remoteHosts.length === 0
                ? t('models.networkNone')
                : t('models.networkHosts', { hosts: doctor.data.remoteHosts.join(', ') })}
            </dd>
          </dl>
          {doctor.data.llama.error && <p className="error-text">{doctor.data.llama.error}</p>}
          <h4>{t('models.devices')}</h4>
          {doctor.data.llama.devices.length === 0 ? (
            <p className="muted">{t('models.noDevices')}</p>
          ) : (
            <ul data-testid="doctor-devices">
              {doctor.data.llama.devices.map((d, i) => (
                <li key={i}>
                  {d.name}:{' '}
                  {t('models.vram', { free: formatBytes(d.vramFreeBytes), total: formatBytes(d.vramTotalBytes) })}
                </li>
              ))}
            </ul>
          )}
          <details>
            <summary>{t('models.versions')}</summary>
            <dl className="meta">
              {Object.entries(doctor.data.versions).map(([k, v]) => (
                <div key={k} className="contents">
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          </details>
        </>
      )}
    </section>
  );
}

export function ModelsScreen() {
  const { t } = useTranslation();
  const status = useApi('models:status', {});
  const files = useApi('models:list', {});
  const catalog = useApi('models:catalog', {});
  const [path, setPath] = useState('');
  return (
    <div className="stack">
      <h2>{t('models.title')}</h2>
      <div className="two-col">
        {status.status === 'error' && <ErrorView error={status.error} onRetry={status.reload} />}
        {status.status === 'loading' && !status.data && <Loading />}
        {status.data && (
          <>
            <StatusCard role="generation" status={status.data.generation} onUnloaded={status.reload} />
            <StatusCard role="embedding" status={status.data.embedding} onUnloaded={status.reload} />
          </>
        )}
      </div>
      <div className="two-col">
        <section className="panel" aria-labelledby="files-heading">
          <div className="row between">
            <h3 id="files-heading">{t('models.files')}</h3>
            <button type="button" onClick={files.reload}>
              {t('common.refresh')}
            </button>
          </div>
          {files.status === 'loading' && !files.data && <Loading />}
          {files.status === 'error' && <ErrorView error={files.error} onRetry={files.reload} compact />}
          {files.data?.length === 0 && (
            <Empty title={t('models.noFiles')} hint={t('models.noFilesHint')} testId="models-files-empty" />
          )}
          {files.data && files.data.length > 0 && (
            <ul className="file-list" data-testid="models-files">
              {files.data.map((f) => (
                <li key={f.path}>
                  <button
                    type="button"
                    className="link"
                    onClick={() => setPath(f.path)}
                    aria-label={t('models.useFile', { file: f.file })}
                  >
                    {f.file}
                  </button>{' '}
                  <span className="muted small">
                    {f.kind} · {formatBytes(f.sizeBytes)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
        <LoadForm path={path} setPath={setPath} onLoaded={status.reload} />
      </div>
      <InferenceServers />
      <div className="two-col">
        <TryIt />
        <Doctor />
      </div>
      <section className="panel" aria-labelledby="catalog-heading">
        <h3 id="catalog-heading">{t('models.catalog')}</h3>
        <p className="muted small">{t('models.catalogHint')}</p>
        {catalog.status === 'loading' && !catalog.data && <Loading />}
        {catalog.status === 'error' && <ErrorView error={catalog.error} onRetry={catalog.reload} compact />}
        {catalog.data?.length === 0 && <Empty title={t('models.catalogEmpty')} />}
        {catalog.data && catalog.data.length > 0 && (
          <ul className="catalog" data-testid="models-catalog">
            {catalog.data.map((entry) => (
              <CatalogRow
                key={entry.id}
                entry={entry}
                onDone={() => {
                  catalog.reload();
                  files.reload();
                }}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
