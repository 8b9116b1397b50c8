import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where the app's read-only assets live: `prompts/`, `resources/`, and the user's `models/`. */
export interface AppPaths {
  appRoot: string;
  dataDir: string;
  promptsDir: string;
  resourcesDir: string;
  modelsDir: string;
}

/**
 * The per-user data directory for browser mode and the CLI: `--data-dir`, else POLYHOP_DATA_DIR,
 * else the platform's convention. (Electron passes its `userData` instead.)
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POLYHOP_DATA_DIR) return resolve(env.POLYHOP_DATA_DIR);
  if (process.platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Polyhop');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Polyhop');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'polyhop');
}

export function appPaths(appRoot: string, dataDir: string, modelsDir?: string): AppPaths {
  return {
    appRoot,
    dataDir: resolve(dataDir),
    promptsDir: join(appRoot, 'prompts'),
    resourcesDir: join(appRoot, 'resources'),
    modelsDir: resolve(modelsDir ?? process.env.POLYHOP_MODELS_DIR ?? join(appRoot, 'models')),
  };
}
