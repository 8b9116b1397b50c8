#!/usr/bin/env node
// Type-checks the Electron front door. Electron's type declarations ship inside its npm package;
// on machines where its binary download failed the package is absent, so the same package is
// fetched from the npm registry (types only, no binary) into .cache/electron-types/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, '.cache', 'electron-types', 'package', 'electron.d.ts');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).optionalDependencies.electron;
const installed = join(root, 'node_modules', 'electron', 'electron.d.ts');
mkdirSync(dirname(target), { recursive: true });
if (existsSync(installed)) copyFileSync(installed, target);
else if (!existsSync(target)) {
  const dir = dirname(dirname(target));
  const tarball = execFileSync('npm', ['pack', `electron@${version}`, '--silent'], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', ['xzf', tarball, 'package/electron.d.ts'], { cwd: dir });
}
execFileSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.electron.json'), '--noEmit'],
  { stdio: 'inherit' },
);
