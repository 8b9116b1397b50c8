import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { findElectronBinary } from '../../src-main/engine/base/electronBinary.js';
import { describeInBrowser } from '../support/browserSuite.js';
import { launchChromium, openApp, screenshot } from '../support/chromium.js';
import { appConsoleErrors } from '../support/e2ePage.js';
import { ensureRendererBuilt } from '../support/e2eServer.js';
import { repoRoot } from '../support/tempEngine.js';

/**
 * The front doors as a user runs them: `npm start` (bin/start.js) falls back to browser mode
 * where Electron's binary is missing and serves the app; `polyhop doctor` and `--help` on every
 * command of the CLI.
 */

let dataDir: string;
let browser: Browser;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'polyhop-start-'));
  // Build once here (shared with the other e2e files), so the child finds the renderer fresh.
  await ensureRendererBuilt();
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  POLYHOP_DATA_DIR: dataDir,
  POLYHOP_MODELS_DIR: join(dataDir, 'models'),
  NO_COLOR: '1',
});

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], timeoutMs = 60_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', script), ...args], {
      cwd: repoRoot,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describeInBrowser('npm start (bin/start.js)', () => {
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await browser?.close();
  });

  it('says in one line that the Electron window is unavailable, serves browser mode, and stops on SIGTERM', async () => {
    const electron = findElectronBinary(repoRoot);
    // Where Electron is installed, `--browser` asks for browser mode explicitly (and no notice is due).
    child = spawn(process.execPath, [join(repoRoot, 'bin', 'start.js'), ...(electron.present ? ['--browser'] : [])], {
      cwd: repoRoot,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child!.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const link = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no link printed in 150 s\nstdout: ${stdout}\nstderr: ${stderr}`)),
        150_000,
      );
      child!.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /http:\/\/127\.0\.0\.1:(\d+)\/auth\?token=([0-9a-f]{32,})/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[0]);
        }
      });
      void exited.then(({ code }) =>
        reject(new Error(`start.js exited (${code}) before printing a link\nstdout: ${stdout}\nstderr: ${stderr}`)),
      );
    });

    const notices = stdout.split('\n').filter((l) => /electron/i.test(l));
    if (electron.present) expect(notices).toEqual([]);
    else {
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/^Electron window unavailable: .+\. Starting browser mode instead\.$/);
    }

    const { context, page, externalRequests, consoleErrors } = await openApp(browser, link);
    try {
      await page.getByTestId('screen-corpus').waitFor();
      for (const screen of ['corpus', 'ask', 'graph', 'models', 'evaluate', 'settings'])
        await page.getByTestId(`nav-${screen}`).waitFor();
      // The data directory came from POLYHOP_DATA_DIR.
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-data-dir').filter({ hasText: dataDir }).waitFor();
      await screenshot(page, 'start-browser-mode');
      expect(externalRequests).toEqual([]);
      expect(appConsoleErrors(consoleErrors)).toEqual([]);
    } finally {
      await context.close();
    }

    child.kill('SIGTERM');
    const { code, signal } = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(link)![1]);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});

describe('the polyhop CLI', () => {
  it('doctor prints its report', async () => {
    const human = await run('polyhop.js', ['doctor']);
    expect(human.code, human.stderr).toBe(0);
    for (const section of [
      'Versions:',
      'node-llama-cpp',
      'llama.cpp backend:',
      'Electron window:',
      'Models folder:',
      'Data directory:',
    ])
      expect(human.stdout).toContain(section);
    expect(human.stdout).toContain(`Data directory: ${dataDir} (writable)`);

    const json = await run('polyhop.js', ['--json', 'doctor']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      versions: Record<string, string>;
      dataDir: { path: string; writable: boolean };
      electronBinary: { present: boolean };
    };
    expect(report.versions.node).toBe(process.versions.node);
    expect(report.dataDir).toEqual({ path: dataDir, writable: true });
    expect(report.electronBinary.present).toBe(findElectronBinary(repoRoot).present);
  });

  /** Command names listed under "Commands:" in a help text (not commander's own `help`). */
  const commandsIn = (help: string): string[] => {
    const section = help.split(/^Commands:$/m)[1] ?? '';
    return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
  };

  it('--help works on every command (spawned) and every sub-command', async () => {
    const top = await run('polyhop.js', ['--help']);
    expect(top.code).toBe(0);
    const commands = commandsIn(top.stdout);
    // The commands issue 2 asks for, at least.
    expect(commands).toEqual(
      expect.arrayContaining([
        'doctor',
        'serve',
        'kb',
        'add',
        'index',
        'ask',
        'export',
        'import',
        'sparql',
        'models',
        'eval',
        'mcp',
        'watch',
      ]),
    );

    const failures: string[] = [];
    const groups: Record<string, string[]> = {};
    const queue = [...commands];
    const worker = async (): Promise<void> => {
      for (let command = queue.shift(); command; command = queue.shift()) {
        const result = await run('polyhop.js', [command, '--help']);
        if (result.code !== 0 || !result.stdout.startsWith(`Usage: polyhop ${command}`))
          failures.push(`${command}: exit ${result.code}\n${result.stdout}${result.stderr}`);
        const subs = commandsIn(result.stdout);
        if (subs.length > 0) groups[command] = subs;
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(failures).toEqual([]);
    expect(Object.keys(groups).sort()).toEqual(['eval', 'kb', 'models', 'store', 'watch']);

    // Sub-commands, and theirs (`models endpoint add`), through the same CLI in this process (a
    // process per command costs seconds on 2 cores).
    const { runCli } = await import('../../src-main/cli.js');
    const helpOf = async (path: string[]): Promise<void> => {
      let printed = '';
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        printed += String(chunk);
        return true;
      });
      let code: number;
      try {
        code = await runCli({
          appRoot: repoRoot,
          argv: [...path, '--help'],
          serve: () => Promise.reject(new Error('not expected')),
        });
      } finally {
        write.mockRestore();
      }
      if (code !== 0 || !printed.startsWith(`Usage: polyhop ${path.join(' ')}`))
        failures.push(`${path.join(' ')}: exit ${code}\n${printed}`);
      const subs = commandsIn(printed);
      if (path.length === 2 && subs.length > 0) nested[path.join(' ')] = subs;
      for (const sub of subs) await helpOf([...path, sub]);
    };
    const nested: Record<string, string[]> = {};
    for (const [group, subs] of Object.entries(groups)) for (const sub of subs) await helpOf([group, sub]);
    expect(failures).toEqual([]);
    expect(groups.kb).toEqual(expect.arrayContaining(['create', 'list', 'rename', 'delete']));
    expect(groups.models).toEqual(expect.arrayContaining(['list', 'download', 'use', 'endpoint']));
    expect(nested['models endpoint']).toEqual(expect.arrayContaining(['add', 'list', 'remove', 'test']));
  }, 180_000);
});
