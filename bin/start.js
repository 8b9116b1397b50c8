#!/usr/bin/env node
// `npm start`: the Electron window where Electron's binary is installed, else browser mode.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { findElectronBinary } = await import('../src-main/engine/base/electronBinary.ts');
const electron = findElectronBinary(appRoot);
if (electron.present && !process.argv.includes('--browser')) {
  const { ensureBuilt } = await import('../src-main/rendererBuild.ts');
  ensureBuilt(appRoot);
  const child = spawn(electron.path, [appRoot], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  if (!electron.present) console.log(`Electron window unavailable: ${electron.reason}. Starting browser mode instead.`);
  process.argv.splice(2, process.argv.length, 'serve', ...process.argv.slice(2).filter((a) => a !== '--browser'));
  await import('./polyhop.js');
}
