import { join } from 'node:path';
import { vi } from 'vitest';
import { runCli } from '../../src-main/cli.js';
import type { Engine } from '../../src-main/engine/api/Engine.js';
import { repoRoot } from './tempEngine.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `polyhop ARGS` in this process with `<dir>/data` as its data folder and `<dir>/models` as
 * its models folder (or on `options.engine`, left open); returns the exit code and what it printed
 * (console and stdout).
 */
export async function polyhopInProcess(
  dir: string,
  args: readonly string[],
  options: { engine?: Engine; input?: NodeJS.ReadableStream } = {},
): Promise<CliRun> {
  let out = '';
  let err = '';
  const log = vi
    .spyOn(console, 'log')
    .mockImplementation((...parts: unknown[]) => void (out += `${parts.join(' ')}\n`));
  const error = vi
    .spyOn(console, 'error')
    .mockImplementation((...parts: unknown[]) => void (err += `${parts.join(' ')}\n`));
  const write = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  try {
    const code = await runCli({
      appRoot: repoRoot,
      argv: ['--data-dir', join(dir, 'data'), '--models-dir', join(dir, 'models'), ...args],
      serve: async () => {},
      ...(options.engine ? { engine: options.engine } : {}),
      ...(options.input ? { input: options.input } : {}),
    });
    return { code, out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}
