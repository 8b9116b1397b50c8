import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STRATEGIES } from '../../../src-main/engine/api/contract.js';
import { allowedDownloadUrl, catalogUrl, DOWNLOAD_HOSTS, loadCatalog } from '../../../src-main/engine/models/ModelCatalog.js';
import { ModelManager } from '../../../src-main/engine/models/ModelManager.js';
import { corpusLlm, engineAt, fullRun, REPO_ROOT, type FullRunSummary } from './support/fullRun.js';
import { installNetworkGuard, isLoopbackHost, type NetworkViolation } from './support/networkGuard.js';

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

const describeViolations = (violations: NetworkViolation[]): string => violations.map((v) => `${v.api} → ${v.destination}\n${v.stack}`).join('\n\n');

describe('the network guard', () => {
  it('tells loopback from everything else', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST', 'app.localhost', undefined, '']) expect(isLoopbackHost(host), String(host)).toBe(true);
    for (const host of ['203.0.113.1', '10.0.0.1', '192.168.1.1', '0.0.0.0', '::', '2001:db8::1', 'huggingface.co', 'localhost.evil.com', '127.0.0.1.nip.io', '::ffff:10.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
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
        socket.on('data', (d) => (text += String(d))).on('end', () => resolve(text)).on('error', reject);
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

describe('a full run makes no network connection but loopback', () => {
  it('in process, under the Node-level guard', async () => {
    const guard = installNetworkGuard();
    const llm = corpusLlm();
    const engine = await engineAt(join(work, 'in-process'), llm);
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
    // Needs root (or user namespaces): CI and the dev machines run as root.
    const probe = spawnSync('unshare', ['-n', 'true']);
    expect(probe.status, `unshare -n is unavailable: ${String(probe.stderr)}`).toBe(0);

    const log = join(work, 'strace.log');
    const child = join(REPO_ROOT, 'test', 'unit', 'security', 'support', 'offlineChild.ts');
    // The canary connects, unguarded, to a remote address after the run: it proves strace sees
    // such a connect (the namespace has no route, so nothing leaves).
    const canary = `node -e "require('net').connect(9, '203.0.113.1').on('error', () => {})"`;
    const script = `ip link set lo up && node --import tsx '${child}' '${join(work, 'namespace')}' && ${canary}`;
    const run = spawnSync('strace', ['-f', '--seccomp-bpf', '-qq', '-e', 'trace=connect,sendto,sendmsg', '-o', log, 'unshare', '-n', 'sh', '-c', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 64 << 20,
    });
    expect(run.status, `${run.error?.message ?? ''}\n${run.stderr}`).toBe(0);

    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    const result = JSON.parse(line) as { selfCheck: string[]; summary: FullRunSummary; violations: NetworkViolation[] };
    // The guard refused every kind of remote call before the run…
    expect(result.selfCheck.map((v) => v.split(' ')[0])).toEqual(
      expect.arrayContaining(['net.Socket.connect', 'fetch', 'dns.lookup', 'dns.promises.resolve4', 'dgram.send']),
    );
    expect(result.selfCheck).toContain('net.Socket.connect 203.0.113.11:80'); // undici under fetch
    expect(result.selfCheck).toContain('net.Socket.connect polyhop-guard.invalid:443'); // https.get, before DNS
    // …the run completed with the network cut and tried nothing remote…
    expectCompleteRun(result.summary);
    expect(result.violations, describeViolations(result.violations)).toEqual([]);
    // …and at the syscall level (worker threads, native code, subprocesses) the canary is the only remote connect.
    expect(remoteDestinations(readFileSync(log, 'utf8'))).toEqual(['203.0.113.1:9']);
  });
});

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
      for (const file of m.files ?? []) expect(DOWNLOAD_HOSTS, `${m.id}/${file}`).toContain(new URL(file, base.href.endsWith('/') ? base : `${base.href}/`).hostname);
    }
  });

  it('a catalog entry on any other host is refused before any connection is tried', async () => {
    const dir = mkdtempSync(join(work, 'catalog-'));
    const entry = { role: 'generation', name: 'Foreign', format: 'gguf', sizeBytes: 1, licence: 'MIT', languages: ['en'] };
    const catalog = {
      version: 1,
      models: [
        { ...entry, id: 'foreign-https', file: 'a.gguf', uri: 'https://203.0.113.5/a.gguf' },
        { ...entry, id: 'lookalike', file: 'b.gguf', uri: 'https://huggingface.co.evil.example/b.gguf' },
        { ...entry, id: 'plain-http', file: 'c.gguf', uri: 'http://huggingface.co/c.gguf' },
        { ...entry, id: 'foreign-onnx', format: 'onnx', file: 'e5', uri: 'https://203.0.113.6/e5/', files: ['config.json'] },
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

  it('only the download path of ModelManager (asked for by models:download) reaches for the network', () => {
    const networkUse = /from 'node:(?:http|https|net|tls|dgram|http2)'|from '(?:http|https|net|tls|dgram|ws|undici|got|axios)'|\bfetch\(|createModelDownloader|new WebSocket\(|XMLHttpRequest/;
    const users: string[] = [];
    for (const root of ['src-main', 'src-preload']) {
      for (const file of walk(join(REPO_ROOT, root))) if (networkUse.test(readFileSync(file, 'utf8'))) users.push(relative(REPO_ROOT, file));
    }
    // serve.ts listens on loopback (browser mode); it connects nowhere. The SPARQL store client
    // connects only to a store the user configured: StoreService makes it from that configuration alone.
    expect(users.sort()).toEqual(['src-main/engine/kb/store/SparqlStoreClient.ts', 'src-main/engine/models/downloadFile.ts', 'src-main/serve.ts']);
    const storeClients = [...walk(join(REPO_ROOT, 'src-main'))].filter((f) => /new SparqlStoreClient\(/.test(readFileSync(f, 'utf8')));
    expect(storeClients.map((f) => relative(REPO_ROOT, f))).toEqual(['src-main/engine/api/StoreService.ts']);
    const callers = [...walk(join(REPO_ROOT, 'src-main'))].filter((f) => /modelFiles\.download\(|\.download\(catalogId/.test(readFileSync(f, 'utf8')));
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
