import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ElectronBinary {
  present: boolean;
  /** Path of the executable when present. */
  path?: string;
  /** Why it is missing (shown to the user in one line). */
  reason?: string;
}

/**
 * Finds Electron's executable without importing electron (its index throws when the binary
 * is missing). `npm ci` on a machine that reaches only the npm registry cannot download it:
 * the package is an optional dependency whose failed download leaves it out.
 */
export function findElectronBinary(fromDir: string): ElectronBinary {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(join(fromDir, 'noop.js')).resolve('electron/package.json'));
  } catch {
    return {
      present: false,
      reason: 'the electron package is not installed (its binary download needs access to GitHub)',
    };
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile))
    return {
      present: false,
      reason: "electron's binary was not downloaded (no network beyond the npm registry at install time)",
    };
  const executable = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(executable)
    ? { present: true, path: executable }
    : { present: false, reason: `electron's executable ${executable} is missing` };
}
