import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/tempEngine.js';

/** Runs a script in its own Node process (tsx loads the TypeScript), as a front door would. */
function runScript(body: string): { status: number | null; stderr: string; stdout: string } {
  const guard = pathToFileURL(join(repoRoot, 'src-main', 'engine', 'api', 'logUnhandledRejections.ts')).href;
  const script = `import { logUnhandledRejections } from ${JSON.stringify(guard)};\n${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

const ESCAPE = `Promise.reject(new Error('RDF worker terminated'));
setTimeout(() => console.log('still running'), 50);`;

describe('logUnhandledRejections (front doors)', () => {
  it('without it, one escaped rejection ends the process (Node default)', () => {
    const r = runScript(ESCAPE);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('still running');
  });

  it('with it, the rejection is logged as a bug and the process carries on', () => {
    const r = runScript(`logUnhandledRejections(); logUnhandledRejections();\n${ESCAPE}`);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('still running');
    expect(r.stderr.match(/BUG: a promise rejection was not handled/g)).toHaveLength(1);
    expect(r.stderr).toContain('RDF worker terminated');
  });
});
