// better-sqlite3 is compiled for the Node that ran `npm ci`; Electron's main process has another
// ABI. Rather than rebuilding node_modules for Electron (which would break the CLI and the
// tests), keep a second binding built for Electron under .cache/ and hand its path to the engine
// (POLYHOP_SQLITE_BINDING). Only runs where Electron's binary is installed, i.e. online machines.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Path of a better-sqlite3 binding that loads in `electronPath`, building it once if needed. */
export function electronSqliteBinding(appRoot, electronPath) {
  const loads = (binding) =>
    spawnSync(
      electronPath,
      [
        '-e',
        `new (require('better-sqlite3'))(':memory:'${binding ? `, { nativeBinding: ${JSON.stringify(binding)} }` : ''})`,
      ],
      {
        cwd: appRoot,
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: 'ignore',
      },
    ).status === 0;
  if (loads(null)) return null;
  const version = JSON.parse(readFileSync(join(appRoot, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  const binding = join(appRoot, '.cache', 'electron-native', version, 'better_sqlite3.node');
  if (existsSync(binding) && loads(binding)) return binding;
  process.stderr.write(`Building better-sqlite3 for Electron ${version} (once)…\n`);
  const work = mkdtempSync(join(tmpdir(), 'polyhop-sqlite-'));
  try {
    cpSync(join(appRoot, 'node_modules', 'better-sqlite3'), work, { recursive: true });
    rmSync(join(work, 'build'), { recursive: true, force: true });
    const env = { ...process.env, npm_config_runtime: 'electron', npm_config_target: version };
    // better-sqlite3 publishes prebuilt bindings for each Electron ABI; fetching one needs the
    // network, as the Electron binary itself did.
    execFileSync(
      process.execPath,
      [join(appRoot, 'node_modules', 'prebuild-install', 'bin.js'), '--runtime', 'electron', '--target', version],
      { cwd: work, env, stdio: 'inherit' },
    );
    mkdirSync(join(binding, '..'), { recursive: true });
    cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), binding);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!loads(binding))
    throw new Error(
      `better-sqlite3 for Electron ${version} does not load; \`npm start -- --browser\` runs browser mode instead`,
    );
  return binding;
}
