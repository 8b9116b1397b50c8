import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { polyhopInProcess } from '../../support/cliInProcess.js';
import { repoRoot } from '../../support/tempEngine.js';

describe('polyhop add --watch, watch list|remove, and watch in the foreground', () => {
  const dir = mkdtempSync(join(tmpdir(), 'polyhop-cli-watch-'));
  const folder = join(dir, 'notes');
  mkdirSync(folder);
  writeFileSync(join(folder, 'first.txt'), 'Odysseus was the king of Ithaca.');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const polyhop = (...args: string[]) => polyhopInProcess(dir, args);

  it('adds a folder and keeps it on the watch list with its ignore patterns', async () => {
    expect((await polyhop('kb', 'create', 'notes')).code).toBe(0);
    const added = await polyhop('add', folder, '--kb', 'notes', '--watch', '--ignore', '*.bak');
    expect(added).toMatchObject({ code: 0, out: expect.stringContaining(`Watching ${folder}`) });
    expect(added.out).toContain('Added 1 document(s)');
    const listed = await polyhop('--json', 'watch', 'list', '--kb', 'notes');
    expect(JSON.parse(listed.out)).toEqual([
      { kb: 'notes', path: folder, ignore: ['*.bak'], mode: 'stopped', message: null, lastSync: null },
    ]);
  });

  it('follows the folder in the foreground until interrupted', async () => {
    const child = spawn(
      process.execPath,
      [
        join(repoRoot, 'bin', 'polyhop.js'),
        '--data-dir',
        join(dir, 'data'),
        '--models-dir',
        join(dir, 'models'),
        'watch',
        '--kb',
        'notes',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const until = async (re: RegExp): Promise<string> => {
      for (;;) {
        const next = await lines.next();
        if (next.done) throw new Error(`polyhop watch ended before printing ${re}; stderr: ${stderr}`);
        if (re.test(next.value)) return next.value;
      }
    };
    // The catch-up scan (which finds the file added before as it was) and the watcher start together.
    const started = [
      await until(/: \d+ new or changed|^watching /),
      await until(/: \d+ new or changed|^watching /),
    ].sort();
    expect(started).toEqual([
      expect.stringMatching(/: 0 new or changed, 0 moved, 0 removed/),
      `watching ${folder} (events)`,
    ]);
    writeFileSync(join(folder, 'second.txt'), 'Penelope was the wife of Odysseus.');
    writeFileSync(join(folder, 'second.bak'), 'ignored');
    expect(await until(/: \d+ new or changed/)).toMatch(/1 new or changed, 0 moved, 0 removed.*\(indexing\)/);
    // No model is set up here: the document stays pending, and the index job says why.
    expect(await until(/^indexing /)).toMatch(/^indexing failed: .*model/i);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const docs = await polyhop('--json', 'docs', '--kb', 'notes');
    expect(
      JSON.parse(docs.out)
        .rows.map((d: { title: string; status: string }) => [d.title, d.status])
        .sort(),
    ).toEqual([
      ['first.txt', 'pending'],
      ['second.txt', 'pending'],
    ]);
  });

  it('stops watching a folder on request', async () => {
    expect((await polyhop('watch', 'remove', folder, '--kb', 'notes')).out).toContain(`No longer watching ${folder}`);
    expect(JSON.parse((await polyhop('--json', 'watch', 'list')).out)).toEqual([]);
  });
});
