/**
 * Run by offline.test.ts as `node --import tsx offlineChild.ts <workDir> [<endpointHost>]` inside
 * a network namespace that has only loopback (`unshare -n`), traced by strace: the full run with
 * the guard installed, after a self-check that the guard refuses every kind of remote destination.
 * With an endpoint host (an address the namespace's loopback carries), an inference server listens
 * there and is configured and tested through the Api, and the guard allows exactly the hosts of
 * the engine's `networkAllowList`.
 * Prints one JSON line: { selfCheck, summary, violations, allowed, allowHosts, probe }.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import { mkdirSync } from 'node:fs';
import { get } from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { networkAllowList } from '../../../../src-main/engine/api/networkAllowList.js';
import { startModelListServer } from '../../../support/modelListServer.js';
import { installNetworkGuard } from './networkGuard.js';
import { corpusLlm, corpusEngineAt, fullRun } from './fullRun.js';

const [workDir, endpointHost] = process.argv.slice(2);
if (!workDir) throw new Error('usage: offlineChild.ts <workDir> [<endpointHost>]');
const allowHosts = endpointHost ? [endpointHost] : [];

/** Each remote kind of call once (TEST-NET-3 addresses, `.invalid` names): the guard must refuse them all. */
async function selfCheck(): Promise<string[]> {
  const undiciFetch = globalThis.fetch;
  const guard = installNetworkGuard({ allowHosts });
  const settle = (emitter: { once(event: 'error' | 'close', f: () => void): unknown }): Promise<void> =>
    new Promise((resolve) => {
      emitter.once('error', resolve);
      emitter.once('close', resolve);
    });
  await settle(net.connect(443, '203.0.113.7'));
  await settle(tls.connect({ host: '203.0.113.8', port: 443 }));
  await settle(get('https://polyhop-guard.invalid/'));
  await fetch('http://203.0.113.9/').catch(() => undefined);
  // Undici under the fetch wrapper still ends in Socket#connect.
  await undiciFetch('http://203.0.113.11/').catch(() => undefined);
  await new Promise<void>((resolve) => dns.lookup('polyhop-guard.invalid', () => resolve()));
  await dns.promises.resolve4('polyhop-guard.invalid').catch(() => undefined);
  const udp = dgram.createSocket('udp4');
  try {
    udp.send('x', 53, '203.0.113.10');
  } catch {
    // refused synchronously, as intended
  }
  udp.close();
  guard.uninstall();
  return guard.violations.map((v) => `${v.api} ${v.destination}`);
}

const checked = await selfCheck();
mkdirSync(workDir, { recursive: true });
const guard = installNetworkGuard({ allowHosts });
const llm = corpusLlm();
const engine = await corpusEngineAt(join(workDir, 'data'), llm);
const server = endpointHost
  ? await startModelListServer({ host: endpointHost, models: ['qwen3-8b'], apiKey: 'sk-offline-child' })
  : null;
try {
  if (server) {
    const added = await engine.call('endpoints:add', {
      id: 'gpu1',
      role: 'generation',
      baseUrl: server.baseUrl,
      model: 'qwen3-8b',
      apiKey: 'sk-offline-child',
    });
    if (!added.ok) throw new Error(`endpoints:add: ${added.error.message}`);
    // The guard must allow what the engine's own allow-list names, no more.
    if (JSON.stringify(networkAllowList(engine.settings.get())) !== JSON.stringify(allowHosts))
      throw new Error(
        `networkAllowList ${JSON.stringify(networkAllowList(engine.settings.get()))} ≠ ${JSON.stringify(allowHosts)}`,
      );
  }
  const summary = await fullRun(engine, llm, workDir);
  const probe = server ? await engine.call('endpoints:test', { id: 'gpu1' }) : null;
  process.stdout.write(
    `${JSON.stringify({ selfCheck: checked, summary, violations: guard.violations, allowed: guard.allowed, allowHosts, probe })}\n`,
  );
} finally {
  await server?.close();
  await engine.dispose();
  guard.uninstall();
}
