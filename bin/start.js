#!/usr/bin/env node
// `npm start`: the Electron window where Electron's binary is installed, else browser mode.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2).filter((a) => a !== '--browser');

/** Why the window cannot open here, or null with the SQLite binding Electron needs. */
async function prepareWindow() {
  if (process.argv.includes('--browser')) return { reason: null };
  const { findElectronBinary } = await import('../src-main/engine/base/electronBinary.ts');
  const electron = findElectronBinary(appRoot);
  if (!electron.present) return { reason: electron.reason };
  const { ensureBuilt } = await import('../src-main/rendererBuild.ts');
  const { electronSqliteBinding } = await import('./electronSqlite.js');
  ensureBuilt(appRoot);
  try {
    return { electron: electron.path, binding: electronSqliteBinding(appRoot, electron.path) };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

const window = await prepareWindow();
if (window.electron) {
  const env = window.binding ? { ...process.env, POLYHOP_SQLITE_BINDING: window.binding } : process.env;
  const child = spawn(window.electron, [appRoot], { stdio: 'inherit', env });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  if (window.reason) console.log(`Electron window unavailable: ${window.reason}. Starting browser mode instead.`);
  process.argv.splice(2, process.argv.length, 'serve', ...args);
  await import('./polyhop.js');
}
