import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot as REPO_ROOT } from '../../support/tempEngine.js';

/**
 * Electronegativity (static analysis of Electron apps) over the main process, the preload and
 * the renderer's HTML: no HIGH or MEDIUM finding may stand unless `.electronegativity/allowlist.json`
 * accepts it with a written justification. It runs in a network namespace with no route out,
 * because the tool tries to fetch translations and Electron's release list.
 */

interface Finding {
  id: string;
  severity: 'INFORMATIONAL' | 'LOW' | 'MEDIUM' | 'HIGH';
  confidence: string;
  file: string;
  line: number;
  sample: string;
  description: string;
}
interface Accepted {
  id: string;
  file: string;
  justification: string;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const electronVersion = pkg.optionalDependencies?.electron ?? pkg.devDependencies?.electron;
const scanned = mkdtempSync(join(tmpdir(), 'polyhop-electronegativity-'));
let findings: Finding[];

beforeAll(() => {
  // What ships in the window's process tree: main, preload, and the renderer's HTML (its CSP).
  cpSync(join(REPO_ROOT, 'src-main'), join(scanned, 'src-main'), { recursive: true });
  cpSync(join(REPO_ROOT, 'src-preload'), join(scanned, 'src-preload'), { recursive: true });
  mkdirSync(join(scanned, 'src-renderer'));
  cpSync(join(REPO_ROOT, 'src-renderer', 'index.html'), join(scanned, 'src-renderer', 'index.html'));
  const run = spawnSync(
    'unshare',
    [
      '-n',
      process.execPath,
      join(REPO_ROOT, 'test', 'unit', 'security', 'support', 'electronegativityScan.cjs'),
      scanned,
      String(electronVersion),
    ],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(run.status, `${run.error?.message ?? ''}\n${run.stderr}`).toBe(0);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as { findings: Finding[]; errors: unknown[] };
  expect(result.errors, 'every file parsed').toEqual([]);
  findings = result.findings;
});
afterAll(() => rmSync(scanned, { recursive: true, force: true }));

describe('Electronegativity', () => {
  it('knows the Electron version and ran its checks over main.ts', () => {
    expect(electronVersion).toMatch(/^\d+\.\d+\.\d+$/);
    // The preload reminder always fires for main.ts: proof that the file was analysed.
    expect(findings.some((f) => f.id === 'PRELOAD_JS_CHECK' && f.file === 'src-main/main.ts')).toBe(true);
  });

  it('leaves no HIGH or MEDIUM finding without a written justification, and no stale justification', () => {
    const allow = (
      JSON.parse(readFileSync(join(REPO_ROOT, '.electronegativity', 'allowlist.json'), 'utf8')) as {
        accepted: Accepted[];
      }
    ).accepted;
    for (const entry of allow) expect(entry.justification.length, `${entry.id}: justify it`).toBeGreaterThan(80);
    const serious = findings.filter((f) => f.severity === 'HIGH' || f.severity === 'MEDIUM');
    const unexplained = serious.filter((f) => !allow.some((a) => a.id === f.id && a.file === f.file));
    expect(unexplained.map((f) => `${f.severity} ${f.id} ${f.file}:${f.line} ${f.sample} — ${f.description}`)).toEqual(
      [],
    );
    const stale = allow.filter((a) => !serious.some((f) => f.id === a.id && f.file === a.file));
    expect(stale.map((a) => `${a.id} ${a.file}`)).toEqual([]);
  });
});

describe('the window and its preload', () => {
  const main = readFileSync(join(REPO_ROOT, 'src-main', 'main.ts'), 'utf8');
  const preload = readFileSync(join(REPO_ROOT, 'src-preload', 'index.ts'), 'utf8');

  it('keeps the hardened webPreferences and refuses navigation, new windows, permissions and foreign requests', () => {
    for (const setting of [
      'contextIsolation: true',
      'sandbox: true',
      'nodeIntegration: false',
      'nodeIntegrationInWorker: false',
      'webviewTag: false',
      "disableBlinkFeatures: 'Auxclick'",
    ])
      expect(main).toContain(setting);
    expect(main).not.toMatch(
      /webSecurity:\s*false|allowRunningInsecureContent:\s*true|experimentalFeatures:\s*true|enableRemoteModule/,
    );
    expect(main).toContain('app.enableSandbox()');
    expect(main).toMatch(/will-navigate', \(event\) => event\.preventDefault\(\)/);
    expect(main).toMatch(/setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
    expect(main).toMatch(/setPermissionRequestHandler\(\(_wc, _permission, callback\) => callback\(false\)\)/);
    expect(main).toMatch(
      /onBeforeRequest\(\(details, callback\) =>\s*callback\(\{ cancel: !isOwnFile\(details\.url\) \}\),?\s*\)/,
    );
    expect(main).not.toMatch(/shell\.openExternal|openExternal\(/);
  });

  it("exposes exactly the Api on fixed channels: invoke, onEvent, a dropped file's path, the dialogs, opening a KB document", () => {
    const exposed = [...preload.matchAll(/exposeInMainWorld\(\s*'([^']+)'/g)].map((m) => m[1]);
    expect(exposed).toEqual(['polyhop']);
    const imports = [...preload.matchAll(/from '([^']+)'/g)].map((m) => m[1]).sort();
    expect(imports).toEqual([
      '../src-main/engine/api/contract.js',
      '../src-renderer/api/bridge.js',
      './methods.js',
      'electron',
    ]);
    const body = preload.slice(preload.indexOf('exposeInMainWorld'));
    const members = [...body.matchAll(/^ {2}(\w+)(?:\(|: \{)/gm)].map((m) => m[1]);
    expect(members).toEqual(['invoke', 'pathForFile', 'onEvent', 'dialogs', 'shell']);
    const dialogs = [...body.matchAll(/^ {4}(\w+): \(/gm)].map((m) => m[1]);
    expect(dialogs).toEqual(['chooseFiles', 'chooseFolder', 'chooseSavePath', 'openDocument']);
    expect(preload).toMatch(/return webUtils\.getPathForFile\(file\);/);
    // Channels are fixed constants (the bridge's), never caller-chosen; ipcRenderer itself never leaves.
    expect([...preload.matchAll(/ipcRenderer\.(\w+)\(([^,)]+)/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      'invoke IPC_INVOKE_CHANNEL',
      'on IPC_EVENT_CHANNEL',
      'off IPC_EVENT_CHANNEL',
      'invoke DIALOG_CHANNELS.chooseFiles',
      'invoke DIALOG_CHANNELS.chooseFolder',
      'invoke DIALOG_CHANNELS.chooseSavePath',
      'invoke OPEN_DOCUMENT_CHANNEL',
    ]);
    // Main answers each dialog channel only for the app's own page, after validating the payload.
    const handlers = [
      ...main.matchAll(/ipcMain\.handle\(DIALOG_CHANNELS\.(\w+), async \(event[^)]*\) => \{\n(.*)\n(.*)\n/g),
    ];
    expect(handlers.map((m) => m[1])).toEqual(['chooseFiles', 'chooseFolder', 'chooseSavePath']);
    for (const [, , first, second] of handlers) expect(`${first}\n${second}`).toMatch(/if \(!fromRenderer\(event\)/);
    // Opening a document: the app's own page only, a validated {kb, documentId}, the path from the KB.
    const open = /ipcMain\.handle\(OPEN_DOCUMENT_CHANNEL, async \(event, payload: unknown\) => \{\n(.*)\n(.*)\n/.exec(
      main,
    );
    expect(open?.[1]).toMatch(/parseOpenDocumentRequest\(payload\)/);
    expect(open?.[2]).toMatch(/if \(!fromRenderer\(event\) \|\| !request\)/);
    expect(main).toMatch(/shell\.openPath\(await documentFilePath\(engine, request\.kb, request\.documentId\)\)/);
    expect(body).not.toMatch(/:\s*ipcRenderer\b|ipcRenderer\s*[,}]|\bsend\(|sendSync\(|require\(|process\./);
    expect(preload).toMatch(/if \(!METHODS\.has\(method\)\)/);
  });

  it('gives the file:// window a strict Content-Security-Policy', () => {
    const html = readFileSync(join(REPO_ROOT, 'src-renderer', 'index.html'), 'utf8');
    const content = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(content).toBeDefined();
    const policy = new Map(
      content!
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    // Only this origin and browser mode's loopback event stream; no remote host anywhere.
    for (const value of policy.get('connect-src') ?? []) expect(["'self'", 'ws://127.0.0.1:*']).toContain(value);
    for (const [name, values] of policy) {
      for (const v of values) {
        expect(v, name).not.toMatch(/unsafe-eval|unsafe-inline|^\*$|^https?:|^wss?:\/\/(?!127\.0\.0\.1)/);
      }
    }
  });
});
