import { installedOcrLanguages } from '../../ingest/load/ocr/ocrLanguages.js';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findElectronBinary } from '../../base/electronBinary.js';
import { toErrorData } from '../../base/errors.js';
import { probeLlamaBackend } from '../../models/probeLlamaBackend.js';
import type { DoctorReport } from '../contract.js';
import type { Engine } from '../Engine.js';
import type { Handlers } from '../dispatch.js';
import { redactSettings, restoreEndpointKeys } from '../endpointKeys.js';
import { networkAllowList } from '../networkAllowList.js';

export function systemHandlers(
  engine: Engine,
): Pick<
  Handlers,
  'system:doctor' | 'system:getSettings' | 'system:setSettings' | 'jobs:list' | 'jobs:cancel' | 'jobs:pause'
> {
  return {
    'system:doctor': () => doctor(engine),
    'system:getSettings': () => redactSettings(engine.settings.get()),
    'system:setSettings': ({ settings }) =>
      redactSettings(engine.settings.update(restoreEndpointKeys(settings, engine.settings.get()))),
    'jobs:list': () => engine.jobs.list(),
    'jobs:cancel': ({ jobId }) => ({ cancelled: engine.jobs.cancel(jobId) }),
    'jobs:pause': ({ jobId }) => ({ paused: engine.jobs.pause(jobId) }),
  };
}

async function doctor(engine: Engine): Promise<DoctorReport> {
  const { appRoot, dataDir, modelsDir } = engine.paths;
  const electron = findElectronBinary(appRoot);
  // Load the selected models so the report shows the backend and GPU layers really chosen.
  const modelErrors: string[] = [];
  for (const load of [() => engine.models.generation(), () => engine.models.embedder()]) {
    await load().catch((error: unknown) => modelErrors.push(toErrorData(error).message));
  }
  return {
    versions: versions(appRoot),
    llama: await probeLlamaBackend(),
    electronBinary: { present: electron.present, ...(electron.reason ? { reason: electron.reason } : {}) },
    models: (await engine.modelFiles.list()).map((m) => ({ file: m.file, sizeBytes: m.sizeBytes, kind: m.kind })),
    modelsDir,
    dataDir: { path: dataDir, writable: isWritable(dataDir) },
    ...engine.models.status(),
    modelErrors,
    remoteHosts: networkAllowList(engine.settings.get(), engine.stores.urls()),
    ocrLanguages: installedOcrLanguages(),
    storeOrigins: [...new Set(engine.stores.urls().map((u) => new URL(u).origin))].sort(),
  };
}

function versions(appRoot: string): Record<string, string> {
  const out: Record<string, string> = { node: process.versions.node };
  const own = JSON.parse(readFileSync(join(appRoot, 'package.json'), 'utf8')) as { version: string };
  out.polyhop = own.version;
  for (const name of [
    'node-llama-cpp',
    '@huggingface/transformers',
    'better-sqlite3',
    'sqlite-vec',
    'oxigraph',
    'electron',
  ]) {
    try {
      // Read the manifest directly: ESM-only packages do not export `package.json`.
      out[name] = (
        JSON.parse(readFileSync(join(appRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
      ).version;
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}

function isWritable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
