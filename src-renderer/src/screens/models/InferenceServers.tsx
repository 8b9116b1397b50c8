import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type EndpointProbeView, type EndpointStatusView } from '../../../api/index.js';
import { Empty, ErrorView, Loading } from '../../components/StateViews.js';
import { formatNumber } from '../../lib/format.js';
import { useAction, useApi } from '../../lib/useApi.js';
import { TextField } from '../../components/TextField.js';

type Role = EndpointStatusView['role'];

/** Health, served model and calls in flight change while jobs run: poll while the screen is open. */
const POLL_MS = 2000;

function AddServerForm({ onAdded }: { onAdded: () => void }) {
  const { t } = useTranslation();
  const [id, setId] = useState('');
  const [role, setRole] = useState<Role>('generation');
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [concurrency, setConcurrency] = useState(4);
  const add = useAction(async () => {
    await api().call('endpoints:add', {
      id: id.trim(),
      role,
      baseUrl: baseUrl.trim(),
      model: model.trim(),
      concurrency,
      ...(apiKey ? { apiKey } : {}),
    });
    setId('');
    setBaseUrl('');
    setModel('');
    setApiKey('');
    onAdded();
  });
  const ready = id.trim() && baseUrl.trim() && model.trim();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ready) void add.run();
  };
  return (
    <form className="form" onSubmit={submit} aria-labelledby="endpoint-add-heading" data-testid="endpoint-add">
      <h4 id="endpoint-add-heading">{t('models.servers.add')}</h4>
      <div className="row wrap">
        <label className="inline">
          <span>{t('models.servers.id')}</span>
          <input
            value={id}
            onChange={(e) => setId(e.target.value)}
            spellCheck={false}
            required
            placeholder="gpu1"
            data-testid="endpoint-add-id"
          />
        </label>
        <label className="inline">
          <span>{t('models.roleLabel')}</span>
          <select value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="endpoint-add-role">
            <option value="generation">{t('models.role.generation')}</option>
            <option value="embedding">{t('models.role.embedding')}</option>
          </select>
        </label>
        <label className="inline">
          <span>{t('models.servers.concurrency')}</span>
          <input
            type="number"
            min={1}
            max={256}
            value={concurrency}
            onChange={(e) => setConcurrency(Math.min(256, Math.max(1, Number(e.target.value) || 1)))}
            data-testid="endpoint-add-concurrency"
          />
        </label>
      </div>
      <TextField
        label={t('models.servers.url')}
        type="url"
        value={baseUrl}
        onValue={setBaseUrl}
        spellCheck={false}
        required
        placeholder="http://gpu1:8080/v1"
        data-testid="endpoint-add-url"
      />
      <TextField
        label={t('models.servers.model')}
        value={model}
        onValue={setModel}
        spellCheck={false}
        required
        placeholder="qwen3-8b"
        data-testid="endpoint-add-model"
      />
      <TextField
        label={t('models.servers.apiKey')}
        type="password"
        value={apiKey}
        onValue={setApiKey}
        autoComplete="off"
        placeholder={t('models.servers.apiKeyNone')}
        data-testid="endpoint-add-key"
      />
      <button type="submit" className="primary" disabled={!ready || add.pending} data-testid="endpoint-add-submit">
        {add.pending ? t('common.working') : t('models.servers.addButton')}
      </button>
      {add.error && <ErrorView error={add.error} compact />}
    </form>
  );
}

function ProbeResult({ probe, model }: { probe: EndpointProbeView; model: string }) {
  const { t } = useTranslation();
  return (
    <p
      className={probe.ok && probe.modelServed ? 'small' : 'small error-text'}
      role="status"
      data-testid="endpoint-probe"
      data-ok={String(probe.ok)}
      data-model-served={String(probe.modelServed)}
    >
      {probe.ok
        ? t('models.servers.probeOk', {
            ms: formatNumber(probe.latencyMs),
            models: probe.servedModels.join(', ') || '—',
          })
        : t('models.servers.probeFailed', { ms: formatNumber(probe.latencyMs), error: probe.error ?? '' })}
      {probe.ok && ' '}
      {probe.ok &&
        (probe.modelServed
          ? t('models.servers.modelServed', { model })
          : t('models.servers.modelNotServed', { model }))}
      {probe.roleCall?.ok && ' '}
      {probe.roleCall?.ok && (
        <span data-testid="endpoint-role-call">
          {probe.roleCall.role === 'generation'
            ? t('models.servers.roleCallGeneration')
            : t('models.servers.roleCallEmbedding', { dimension: probe.roleCall.dimension ?? '—' })}
        </span>
      )}
    </p>
  );
}

function ServerRow({ server, onRemoved }: { server: EndpointStatusView; onRemoved: () => void }) {
  const { t } = useTranslation();
  const [probe, setProbe] = useState<EndpointProbeView | null>(null);
  const test = useAction(async () => setProbe(await api().call('endpoints:test', { id: server.id })));
  const remove = useAction(async () => {
    await api().call('endpoints:remove', { id: server.id });
    onRemoved();
  });
  return (
    <>
      <tr data-testid={`endpoint-row-${server.id}`} data-health={server.health}>
        <td>
          <strong>{server.id}</strong>
        </td>
        <td>{t(`models.role.${server.role}`)}</td>
        <td className="break">{server.baseUrl}</td>
        <td className="break">{server.model}</td>
        <td>
          <span
            className={`badge health-${server.health}`}
            title={server.lastError ?? undefined}
            data-testid="endpoint-health"
          >
            {t(`models.servers.health.${server.health}`)}
          </span>
        </td>
        <td className="break" data-testid="endpoint-served-model">
          {server.servedModel ?? '—'}
          {server.context && (
            <p className="muted small" data-testid="endpoint-context">
              {server.context}
            </p>
          )}
          {server.notice && (
            <p className="muted small" data-testid="endpoint-notice">
              {server.notice}
            </p>
          )}
        </td>
        <td data-testid="endpoint-concurrency">
          {server.slots !== undefined && server.slots < server.concurrency
            ? t('models.servers.slotsCapped', { slots: server.slots, concurrency: server.concurrency })
            : server.concurrency}
        </td>
        <td data-testid="endpoint-in-flight">{server.inFlight}</td>
        <td>
          <div className="row">
            <button
              type="button"
              onClick={() => void test.run()}
              disabled={test.pending}
              aria-label={t('models.servers.testLabel', { id: server.id })}
              data-testid={`endpoint-test-${server.id}`}
            >
              {test.pending ? t('common.working') : t('models.servers.test')}
            </button>
            <button
              type="button"
              onClick={() => void remove.run()}
              disabled={remove.pending}
              aria-label={t('models.servers.removeLabel', { id: server.id })}
              data-testid={`endpoint-remove-${server.id}`}
            >
              {t('common.remove')}
            </button>
          </div>
        </td>
      </tr>
      {(probe || test.error || remove.error) && (
        <tr data-testid={`endpoint-result-${server.id}`}>
          <td colSpan={9}>
            {probe && <ProbeResult probe={probe} model={server.model} />}
            {test.error && <ErrorView error={test.error} compact />}
            {remove.error && <ErrorView error={remove.error} compact />}
          </td>
        </tr>
      )}
    </>
  );
}

/** The Models screen's inference servers: OpenAI-compatible servers that run a role instead of a local model. */
export function InferenceServers() {
  const { t } = useTranslation();
  const servers = useApi('endpoints:list', {});
  const { reload } = servers;
  useEffect(() => {
    const id = setInterval(reload, POLL_MS);
    return () => clearInterval(id);
  }, [reload]);
  return (
    <section className="panel" aria-labelledby="servers-heading" data-testid="inference-servers">
      <h3 id="servers-heading">{t('models.servers.title')}</h3>
      <p className="muted small">{t('models.servers.hint')}</p>
      {servers.status === 'loading' && !servers.data && <Loading />}
      {servers.status === 'error' && <ErrorView error={servers.error} onRetry={reload} compact />}
      {servers.data?.length === 0 && <Empty title={t('models.servers.none')} testId="endpoints-empty" />}
      {servers.data && servers.data.length > 0 && (
        <div className="table-scroll">
          <table data-testid="endpoints-table">
            <thead>
              <tr>
                <th scope="col">{t('models.servers.id')}</th>
                <th scope="col">{t('models.roleLabel')}</th>
                <th scope="col">{t('models.servers.url')}</th>
                <th scope="col">{t('models.servers.model')}</th>
                <th scope="col">{t('models.servers.healthLabel')}</th>
                <th scope="col">{t('models.servers.servedModel')}</th>
                <th scope="col">{t('models.servers.concurrency')}</th>
                <th scope="col">{t('models.servers.inFlight')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('models.servers.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {servers.data.map((s) => (
                <ServerRow key={s.id} server={s} onRemoved={reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddServerForm onAdded={reload} />
    </section>
  );
}
