import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import type { EvalManifest } from './EvalManifest.js';
import { rowKey, type EvalResultRow } from './EvalResultRow.js';
import { JsonlFile } from './JsonlFile.js';

export interface LoadedRun {
  dir: string;
  manifest: EvalManifest;
  /** The latest row of each (question, language, strategy). */
  rows: EvalResultRow[];
}

/** Reads a run folder (run.json + results.jsonl); later rows of the same key replace earlier ones. */
export function loadEvalRun(dir: string): LoadedRun {
  const manifestPath = join(dir, 'run.json');
  if (!existsSync(manifestPath))
    throw new PolyhopError('NOT_FOUND', `${dir}: not an evaluation run folder (no run.json)`, { details: { dir } });
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as EvalManifest;
  const latest = new Map<string, EvalResultRow>();
  for (const row of new JsonlFile<EvalResultRow>(join(dir, 'results.jsonl')).readAll()) latest.set(rowKey(row), row);
  return { dir, manifest, rows: [...latest.values()] };
}
