import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  STRATEGIES,
  type EndpointProbeView,
  type Reply,
  type Settings,
} from '../../../src-main/engine/api/contract.js';
import { networkAllowList } from '../../../src-main/engine/api/networkAllowList.js';
import {
  allowedDownloadUrl,
  catalogUrl,
  DOWNLOAD_HOSTS,
  loadCatalog,
} from '../../../src-main/engine/models/ModelCatalog.js';
import { ModelManager } from '../../../src-main/engine/models/ModelManager.js';
import { repoRoot as REPO_ROOT } from '../../support/tempEngine.js';
import { corpusEngineAt, corpusLlm, fullRun, type FullRunSummary } from './support/fullRun.js';
import { installNetworkGuard, isLoopbackHost, type NetworkViolation } from './support/networkGuard.js';
import { startModelListServer } from '../../support/modelListServer.js';

const work = mkdtempSync(join(tmpdir(), 'polyhop-offline-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What every full run must show, wherever it ran. */
function expectCompleteRun(summary: FullRunSummary): void {
  expect(summary.doctorOk).toBe(true);
  expect(summary.documents.map((d) => [d.status, d.language])).toEqual([
    ['indexed', 'en'],
    ['indexed', 'it'],
    ['indexed', 'fr'],
    ['indexed', 'es'],
  ]);
  expect(Object.keys(summary.answers)).toEqual([...STRATEGIES]);
  for (const [strategy, answer] of Object.entries(summary.answers)) {
    expect(answer.status, strategy).toBe('done');
    expect(answer.text, strategy).toMatch(/Penelope/);
  }
  expect(summary.exportedQuads).toBeGreaterThan(100);
  expect(summary.importedQuads).toBe(summary.exportedQuads);
  expect(summary.sparqlTriples).toBeGreaterThan(100);
  expect(summary.llmCalls).toBeGreaterThan(20);
}

const describeViolations = (violations: NetworkViolation[]): string =>
  violations.map((v) => `${v.api} → ${v.destination}\n${v.stack}`).join('\n\n');

describe('the network guard', () => {
  it('tells loopback from everything else', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
      'localhost',
      'LOCALHOST',
      'app.localhost',
      undefined,
      '',
    ])
      expect(isLoopbackHost(host), String(host)).toBe(true);
    for (const host of [
      '203.0.113.1',
      '10.0.0.1',
      '192.168.1.1',
      '0.0.0.0',
      '::',
      '2001:db8::1',
      'huggingface.co',
      'localhost.evil.com',
      '127.0.0.1.nip.io',
      '::ffff:10.0.0.1',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('sits in the path of real sockets (loopback is let through and counted)', async () => {
    const server = createServer((s) => s.end('hi'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const guard = installNetworkGuard();
    try {
      const port = (server.address() as { port: number }).port;
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket
          .on('data', (d) => (text += String(d)))
          .on('end', () => resolve(text))
          .on('error', reject);
      });
      expect(reply).toBe('hi');
      expect(guard.allowed).toContain(`net.Socket.connect 127.0.0.1:${port}`);
      expect(guard.violations).toEqual([]);
    } finally {
      guard.uninstall();
      server.close();
    }
  });
});

describe('the allow-list beyond loopback', () => {
  const endpoint = (id: string, baseUrl: string): Settings['endpoints'][number] => ({
    id,
    role: 'generation',
    baseUrl,
    model: 'm',
    concurrency: 4,
  });

  it('is empty with no endpoint, and names each configured host once otherwise', () => {
    expect(networkAllowList({ endpoints: [] })).toEqual([]);
    const endpoints = [
      endpoint('a', 'http://GPU1.lab.example:8080/v1'),
      endpoint('b', 'https://gpu1.lab.example/v1'),
      endpoint('c', 'http://[2001:db8::7]:8000/v1'),
      endpoint('d', 'http://192.0.2.44:11434/v1'),
      endpoint('e', 'http://user:pw@gpu2.lab.example:1/v1'),
    ];
    expect(networkAllowList({ endpoints })).toEqual([
      '192.0.2.44',
      '2001:db8::7',
      'gpu1.lab.example',
      'gpu2.lab.example',
    ]);
  });

  it('adds the hosts of the configured SPARQL stores', () => {
    const store = [
      'https://Sparql.lab.example/sparql',
      'https://sparql.lab.example/update',
      'http://gsp.lab.example:8890/sparql-graph-crud-auth',
    ];
    expect(networkAllowList({ endpoints: [endpoint('a', 'http://gpu1.lab.example:8080/v1')] }, store)).toEqual([
      'gpu1.lab.example',
      'gsp.lab.example',
      'sparql.lab.example',
    ]);
  });

  it('lets the guard through to those hosts only', async () => {
    const host = machineAddress();
    const server = createServer((socket) => socket.end('hi'));
    await new Promise<void>((r) => server.listen(0, host, r));
    const port = (server.address() as { port: number }).port;
    const guard = installNetworkGuard({
      allowHosts: networkAllowList({ endpoints: [endpoint('a', `http://${host}:${port}/v1`)] }),
    });
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        let text = '';
        connect(port, host)
          .on('data', (d) => (text += String(d)))
          .on('end', () => resolve(text))
          .on('error', reject);
      });
      expect(reply).toBe('hi');
      await new Promise<void>((resolve) => connect(port, '203.0.113.22').once('error', () => resolve()));
      await fetch('http://gpu9.lab.example/v1/models').catch(() => undefined);
    } finally {
      guard.uninstall();
      server.close();
    }
    expect(guard.allowed).toContain(`net.Socket.connect ${host}:${port}`);
    expect(guard.violations.map((v) => `${v.api} ${v.destination}`)).toEqual([
      `net.Socket.connect 203.0.113.22:${port}`,
      'fetch gpu9.lab.example',
    ]);
  });
});

/**
 * A non-loopback IPv4 address of this machine, for a server that stands in for an inference server
 * on the network. A machine with none (air-gapped, only `lo`) gets one made for these tests:
 * {@link standInHost}.
 */
function machineAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  return address ?? standInHost();
}

let standIn: { address: string; remove: () => void } | undefined;
afterAll(() => standIn?.remove());

/**
 * The stand-in remote host of an air-gapped machine: a veth pair whose near end (here) carries
 * 10.98.<n>.1/30 and whose far end sits in a network namespace of its own with 10.98.<n>.2, as a
 * host on a point-to-point link would. The near end is a real interface, not loopback, so the
 * address is what an inference server on the LAN would be; nothing is routed beyond the pair.
 * Needs root, like the namespace tests below; removed after the file's tests.
 */
function standInHost(): string {
  if (standIn) return standIn.address;
  const n = process.pid % 250; // one pair per test process: two test runs on one machine do not collide
  const near = `phnear${process.pid}`.slice(0, 15);
  const far = `phfar${process.pid}`.slice(0, 15);
  const namespace = `polyhop-remote-${process.pid}`;
  const ip = (...args: string[]): void => {
    const r = spawnSync('ip', args, { encoding: 'utf8' });
    expect(r.status, `ip ${args.join(' ')}: ${r.error?.message ?? r.stderr}`).toBe(0);
  };
  const remove = (): void => {
    spawnSync('ip', ['link', 'del', near]); // deletes both ends
    spawnSync('ip', ['netns', 'del', namespace]);
  };
  remove();
  try {
    ip('netns', 'add', namespace);
    ip('link', 'add', near, 'type', 'veth', 'peer', 'name', far);
    ip('link', 'set', far, 'netns', namespace);
    ip('-n', namespace, 'addr', 'add', `10.98.${n}.2/30`, 'dev', far);
    ip('-n', namespace, 'link', 'set', far, 'up');
    ip('-n', namespace, 'link', 'set', 'lo', 'up');
    ip('addr', 'add', `10.98.${n}.1/30`, 'dev', near);
    ip('link', 'set', near, 'up');
  } catch (error) {
    remove();
    throw error;
  }
  standIn = { address: `10.98.${n}.1`, remove };
  const seen = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  expect(seen, 'the stand-in interface is a non-loopback IPv4 address of this machine').toBe(standIn.address);
  return standIn.address;
}

describe('a full run makes no network connection but loopback', () => {
  it('in process, under the Node-level guard', async () => {
    const guard = installNetworkGuard();
    const llm = corpusLlm();
    const engine = await corpusEngineAt(join(work, 'in-process'), llm);
    try {
      const summary = await fullRun(engine, llm, work);
      expectCompleteRun(summary);
    } finally {
      await engine.dispose();
      guard.uninstall();
    }
    expect(guard.violations, describeViolations(guard.violations)).toEqual([]);
  });

  it('in a child process inside a network namespace with only loopback, traced at the syscall level', () => {
    const { result, destinations } = runInNamespace(join(work, 'namespace'));
    expectSelfCheck(result.selfCheck);
    // …the run completed with the network cut and tried nothing remote…
    expectCompleteRun(result.summary);
    expect(result.violations, describeViolations(result.violations)).toEqual([]);
    // …and at the syscall level (worker threads, native code, subprocesses) the canary is the only remote connect.
    expect(destinations).toEqual([CANARY]);
  });
});

describe('with an inference server configured, connections go to its host only', () => {
  it('in process: the guard allows the hosts of networkAllowList, the run and an endpoint test reach only them', async () => {
    const host = machineAddress();
    const server = await startModelListServer({ host, models: ['qwen3-8b'], apiKey: 'sk-offline' });
    const llm = corpusLlm();
    const engine = await corpusEngineAt(join(work, 'endpoint-in-process'), llm);
    const added = await engine.call('endpoints:add', {
      id: 'gpu1',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'qwen3-8b',
      apiKey: 'sk-offline',
    });
    expect(added.ok).toBe(true);
    const allowHosts = networkAllowList(engine.settings.get());
    expect(allowHosts).toEqual([host]);
    const guard = installNetworkGuard({ allowHosts });
    let elsewhere: unknown;
    try {
      const summary = await fullRun(engine, llm, mkdtempSync(join(work, 'endpoint-run-')));
      expectCompleteRun(summary);
      const probe = (await engine.call('endpoints:test', { id: 'gpu1' })) as Reply<EndpointProbeView>;
      expect(probe).toMatchObject({ ok: true, value: { ok: true, modelServed: true } });
      expect(guard.violations, describeViolations(guard.violations)).toEqual([]);
      // Any other host is still refused, and recorded: the guard would fail the run.
      elsewhere = await new Promise((resolve) => connect(443, '203.0.113.30').once('error', resolve));
    } finally {
      await engine.dispose();
      guard.uninstall();
      await server.close();
    }
    expect(guard.allowed.filter((a) => !a.startsWith('net.Socket.connect 127.') && a.includes(host))).toContain(
      `net.Socket.connect ${host}:${new URL(server.baseUrl).port}`,
    );
    expect(String(elsewhere)).toMatch(/networkGuard: net.Socket.connect to 203.0.113.30:443 refused/);
    expect(guard.violations.map((v) => v.destination)).toEqual(['203.0.113.30:443']);
  });

  it('in a network namespace, traced at the syscall level: the only remote connects are to the configured server (and the canary)', () => {
    const host = '10.99.0.1'; // carried by the namespace's loopback device: not a loopback address, yet no route leaves
    const { result, destinations } = runInNamespace(join(work, 'namespace-endpoint'), host);
    expect(result.allowHosts).toEqual([host]);
    expectSelfCheck(result.selfCheck);
    expectCompleteRun(result.summary);
    expect(result.probe).toMatchObject({
      ok: true,
      value: { ok: true, servedModels: ['qwen3-8b'], modelServed: true },
    });
    expect(result.violations, describeViolations(result.violations)).toEqual([]);
    const toServer = destinations.filter((d) => d.startsWith(`${host}:`));
    expect(toServer.length).toBeGreaterThan(0);
    expect(destinations.filter((d) => !d.startsWith(`${host}:`))).toEqual([CANARY]);
  });
});

const CANARY = '203.0.113.1:9';

interface ChildResult {
  selfCheck: string[];
  summary: FullRunSummary;
  violations: NetworkViolation[];
  allowHosts: string[];
  probe: Reply<EndpointProbeView> | null;
}

/**
 * The full run in a child process inside a network namespace with only loopback (plus
 * `endpointHost` on the loopback device, where the child's inference server listens), traced by
 * strace; then a canary connects, unguarded, to a remote address: it proves strace sees such a
 * connect (the namespace has no route, so nothing leaves).
 */
function runInNamespace(dir: string, endpointHost?: string): { result: ChildResult; destinations: string[] } {
  // Needs root (or user namespaces): CI and the dev machines run as root.
  const probe = spawnSync('unshare', ['-n', 'true']);
  expect(probe.status, `unshare -n is unavailable: ${String(probe.stderr)}`).toBe(0);
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'strace.log');
  const child = join(REPO_ROOT, 'test', 'unit', 'security', 'support', 'offlineChild.ts');
  const [canaryHost, canaryPort] = CANARY.split(':');
  const canary = `node -e "require('net').connect(${canaryPort}, '${canaryHost}').on('error', () => {})"`;
  const setUp = endpointHost ? `ip link set lo up && ip addr add ${endpointHost}/32 dev lo` : 'ip link set lo up';
  const script = `${setUp} && node --import tsx '${child}' '${dir}'${endpointHost ? ` '${endpointHost}'` : ''} && ${canary}`;
  const run = spawnSync(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-qq',
      '-e',
      'trace=connect,sendto,sendmsg',
      '-o',
      log,
      'unshare',
      '-n',
      'sh',
      '-c',
      script,
    ],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 64 << 20,
    },
  );
  expect(run.status, `${run.error?.message ?? ''}\n${run.stderr}`).toBe(0);
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  return { result: JSON.parse(line) as ChildResult, destinations: remoteDestinations(readFileSync(log, 'utf8')) };
}

/** The guard refused every kind of remote call before the run. */
function expectSelfCheck(selfCheck: string[]): void {
  expect(selfCheck.map((v) => v.split(' ')[0])).toEqual(
    expect.arrayContaining(['net.Socket.connect', 'fetch', 'dns.lookup', 'dns.promises.resolve4', 'dgram.send']),
  );
  expect(selfCheck).toContain('net.Socket.connect 203.0.113.11:80'); // undici under fetch
  expect(selfCheck).toContain('net.Socket.connect polyhop-guard.invalid:443'); // https.get, before DNS
}

/** Non-loopback IPv4/IPv6 destinations of connect/sendto/sendmsg in an strace log. */
function remoteDestinations(log: string): string[] {
  const found: string[] = [];
  for (const line of log.split('\n')) {
    const v4 = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    const v6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    const m = v4 ?? v6;
    if (m && !isLoopbackHost(m[2])) found.push(`${m[2]}:${m[1]}`);
  }
  return found;
}

describe('model downloads', () => {
  it('every catalog URI (and every file of an ONNX entry) names an allowed host', async () => {
    const models = await loadCatalog(join(REPO_ROOT, 'models', 'catalog.json'));
    expect(models.length).toBeGreaterThan(0);
    expect(DOWNLOAD_HOSTS.length).toBeGreaterThan(0);
    for (const m of models) {
      const base = new URL(catalogUrl(m.uri));
      expect(base.protocol, m.id).toBe('https:');
      expect(DOWNLOAD_HOSTS, m.id).toContain(base.hostname);
      for (const file of m.files ?? [])
        expect(DOWNLOAD_HOSTS, `${m.id}/${file}`).toContain(
          new URL(file, base.href.endsWith('/') ? base : `${base.href}/`).hostname,
        );
    }
  });

  it('a catalog entry on any other host is refused before any connection is tried', async () => {
    const dir = mkdtempSync(join(work, 'catalog-'));
    const entry = {
      role: 'generation',
      name: 'Foreign',
      format: 'gguf',
      sizeBytes: 1,
      licence: 'MIT',
      languages: ['en'],
    };
    const catalog = {
      version: 1,
      models: [
        { ...entry, id: 'foreign-https', file: 'a.gguf', uri: 'https://203.0.113.5/a.gguf' },
        { ...entry, id: 'lookalike', file: 'b.gguf', uri: 'https://huggingface.co.evil.example/b.gguf' },
        { ...entry, id: 'plain-http', file: 'c.gguf', uri: 'http://huggingface.co/c.gguf' },
        {
          ...entry,
          id: 'foreign-onnx',
          format: 'onnx',
          file: 'e5',
          uri: 'https://203.0.113.6/e5/',
          files: ['config.json'],
        },
      ],
    };
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const manager = new ModelManager({ modelsDir: join(dir, 'models'), catalogPath: join(dir, 'catalog.json') });
    const guard = installNetworkGuard();
    try {
      for (const { id } of catalog.models) {
        const error = await manager.download(id).catch((e: unknown) => e);
        expect(error, id).toMatchObject({ code: 'NETWORK_BLOCKED' });
      }
      expect(allowedDownloadUrl('http://127.0.0.1:8080/m.gguf')).toBe('http://127.0.0.1:8080/m.gguf'); // a mirror on this machine
      expect(() => allowedDownloadUrl('https://huggingface.co@203.0.113.5/m.gguf')).toThrow(/Refusing/);
    } finally {
      guard.uninstall();
    }
    expect(guard.violations, describeViolations(guard.violations)).toEqual([]);
  });

  it('only the download path of ModelManager (asked for by models:download) and the inference-server clients reach for the network', () => {
    const networkUse =
      /from 'node:(?:http|https|net|tls|dgram|http2)'|from '(?:http|https|net|tls|dgram|ws|undici|got|axios|openai)'|\bfetch\(|createModelDownloader|new WebSocket\(|XMLHttpRequest/;
    const users: string[] = [];
    for (const root of ['src-main', 'src-preload']) {
      for (const file of walk(join(REPO_ROOT, root)))
        if (networkUse.test(readFileSync(file, 'utf8'))) users.push(relative(REPO_ROOT, file));
    }
    // serve.ts (browser mode) and mcp.ts (MCP over HTTP) listen on loopback and connect nowhere;
    // loopbackGuard.ts only reads their requests' headers. The endpoint clients reach
    // only configured inference servers (the allow-list tests above). The SPARQL store client
    // connects only to a store the user configured: StoreService makes it from that configuration alone.
    const endpointClients = users.filter((f) => f.startsWith('src-main/engine/models/endpoints/'));
    expect(endpointClients).toContain('src-main/engine/models/endpoints/endpointClient.ts');
    expect(users.filter((f) => !endpointClients.includes(f)).sort()).toEqual([
      'src-main/engine/kb/store/SparqlStoreClient.ts',
      'src-main/engine/models/downloadFile.ts',
      'src-main/loopbackGuard.ts',
      'src-main/mcp.ts',
      'src-main/serve.ts',
    ]);
    for (const listener of ['src-main/mcp.ts', 'src-main/serve.ts']) {
      const listens = [...readFileSync(join(REPO_ROOT, listener), 'utf8').matchAll(/\.listen\(([^)]*)\)/g)].map(
        (m) => m[1],
      );
      expect(listens.length, listener).toBeGreaterThan(0);
      for (const args of listens) expect(args, listener).toMatch(/'127\.0\.0\.1'/);
    }
    const storeClients = [...walk(join(REPO_ROOT, 'src-main'))].filter((f) =>
      /new SparqlStoreClient\(/.test(readFileSync(f, 'utf8')),
    );
    expect(storeClients.map((f) => relative(REPO_ROOT, f))).toEqual(['src-main/engine/api/StoreService.ts']);
    const callers = [...walk(join(REPO_ROOT, 'src-main'))].filter((f) =>
      /modelFiles\.download\(|\.download\(catalogId/.test(readFileSync(f, 'utf8')),
    );
    expect(callers.map((f) => relative(REPO_ROOT, f))).toEqual(['src-main/engine/api/handlers/models.ts']);
  });
});

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|tsx|js|cjs|mjs)$/.test(name)) yield path;
  }
}
