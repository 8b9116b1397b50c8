#!/usr/bin/env node
// The `polyhop` command: runs the TypeScript CLI through tsx (no build step needed).
import { register } from 'tsx/esm/api';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

register();
const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { runCli } = await import('../src-main/cli.ts');
process.exitCode = await runCli({
  appRoot,
  argv: process.argv.slice(2),
  serve: async (engine, port) => (await import('../src-main/serve.ts')).runBrowserMode(engine, { appRoot, port }),
});
