import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PolyhopError } from '../base/errors.js';
import { hashParts } from '../base/hash.js';
import type { StrategyName } from '../qa/Answer.js';
import type { EvalManifest } from './EvalManifest.js';
import { ZERO_COST } from './EvalResultRow.js';
import { sourceFingerprint } from './sourceFingerprint.js';
import { BOOTSTRAP_DEFAULTS } from './stats/bootstrap.js';
import type { EvalDataset } from './types.js';

const DEFAULT_BASELINES: StrategyName[] = ['vector', 'llm-only'];

/** What of a run's options and models `run.json` records. */
export interface RunManifestOptions {
  outDir: string;
  strategies: readonly StrategyName[];
  /** Default: kept from the folder's earlier run, else `vector`, `llm-only`. */
  baselines?: StrategyName[] | undefined;
  /** Default: `BOOTSTRAP_DEFAULTS.seed`. */
  seed?: number | undefined;
  /** Default: `BOOTSTRAP_DEFAULTS.samples`. */
  bootstrapSamples?: number | undefined;
  models: EvalManifest['models'];
}

/**
 * Opens `<outDir>/run.json`: a new manifest, or the folder's earlier one with this run's strategies
 * and languages added. Saves it before returning. Throws CONFLICT when the folder holds a run of
 * other questions or another KB source.
 */
export function openRunManifest(dataset: EvalDataset, languages: string[], o: RunManifestOptions): EvalManifest {
  const path = join(o.outDir, 'run.json');
  const fingerprint = hashParts([
    dataset.format,
    ...dataset.items.map((i) => `${i.id}\u0000${i.question}`),
    sourceFingerprint(dataset.source),
  ]);
  const now = new Date().toISOString();
  const passages = dataset.source.kind === 'passages' ? dataset.source.passages.length : 0;
  if (existsSync(path)) {
    const previous = JSON.parse(readFileSync(path, 'utf8')) as EvalManifest;
    if (previous.dataset.fingerprint !== fingerprint) {
      throw new PolyhopError(
        'CONFLICT',
        `${o.outDir} holds a run of other questions (${previous.dataset.name}, ${previous.dataset.questions} questions); choose another folder`,
        { details: { outDir: o.outDir } },
      );
    }
    const merged: EvalManifest = {
      ...previous,
      strategies: union(previous.strategies, o.strategies),
      languages: union(previous.languages, languages),
      baselines: o.baselines ?? previous.baselines,
      models: o.models,
      updatedAt: now,
    };
    saveRunManifest(o.outDir, merged);
    return merged;
  }
  const manifest: EvalManifest = {
    v: 1,
    dataset: {
      name: dataset.name,
      format: dataset.format,
      path: dataset.path,
      kbLanguage: dataset.source.language,
      fingerprint,
      questions: dataset.items.length,
      passages,
      notes: dataset.notes,
    },
    strategies: [...o.strategies],
    languages,
    baselines: o.baselines ?? DEFAULT_BASELINES,
    models: o.models,
    seed: o.seed ?? BOOTSTRAP_DEFAULTS.seed,
    bootstrapSamples: o.bootstrapSamples ?? BOOTSTRAP_DEFAULTS.samples,
    startedAt: now,
    updatedAt: now,
    translation: { ...ZERO_COST },
  };
  saveRunManifest(o.outDir, manifest);
  return manifest;
}

/** Writes `<outDir>/run.json`, stamping `updatedAt`. */
export function saveRunManifest(outDir: string, manifest: EvalManifest): void {
  manifest.updatedAt = new Date().toISOString();
  writeFileSync(join(outDir, 'run.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

function union<T>(a: readonly T[], b: readonly T[]): T[] {
  return [...new Set([...a, ...b])];
}
