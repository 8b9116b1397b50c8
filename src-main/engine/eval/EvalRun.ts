import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { throwIfAborted } from '../base/abort.js';
import { isCancellation, PolyhopError } from '../base/errors.js';
import { CachingLlm } from '../models/CachingLlm.js';
import type { Llm } from '../models/Llm.js';
import { askAndScore, type AskAndScoreContext, type EvalUnit } from './askAndScore.js';
import { readDataset } from './datasets/readDataset.js';
import { toLanguageCode } from './datasets/languageCode.js';
import type { EvalDependencies, EvalKb } from './EvalDependencies.js';
import type { EvalManifest } from './EvalManifest.js';
import { addUsage, rowKey, ZERO_COST, type EvalResultRow } from './EvalResultRow.js';
import type { EvalRunOptions, EvalRunResult, EvalStage } from './EvalRunOptions.js';
import { FileCallCacheStore } from './FileCallCacheStore.js';
import { JsonlFile } from './JsonlFile.js';
import { writeEvalReport, type EvalReport } from './report.js';
import { openRunManifest, saveRunManifest } from './runManifest.js';
import { sourceFingerprint } from './sourceFingerprint.js';
import { BOOTSTRAP_DEFAULTS } from './stats/bootstrap.js';
import { translateItem, type TranslatedItem } from './translateItem.js';
import type { EvalDataset, EvalItem, EvalKbSource } from './types.js';

/**
 * One benchmark run: reads the dataset, translates its questions into the target languages,
 * builds (or reuses) the KB, asks every (question, language, strategy), scores each answer and
 * appends it to `results.jsonl` at once, then writes the report. A killed run started again on
 * the same `outDir` skips the rows already finished.
 */
export class EvalRun<K extends EvalKb = EvalKb> {
  readonly #options: EvalRunOptions;
  readonly #deps: EvalDependencies<K>;
  readonly #llm: Llm | null;
  readonly #judgeLlm: Llm | null;
  readonly #results: JsonlFile<EvalResultRow>;
  #skipped = 0;
  #failed = 0;

  constructor(options: EvalRunOptions, deps: EvalDependencies<K>) {
    if (options.strategies.length === 0)
      throw new PolyhopError('INVALID_REQUEST', 'eval: choose at least one strategy');
    this.#options = options;
    this.#deps = deps;
    mkdirSync(options.outDir, { recursive: true });
    const store = new FileCallCacheStore(join(options.outDir, 'llm-cache.jsonl'));
    this.#llm = deps.llm ? new CachingLlm(deps.llm, { store }) : null;
    // The cache key holds the model identity, so the judge's calls share the file without colliding.
    this.#judgeLlm = deps.judgeLlm ? new CachingLlm(deps.judgeLlm, { store }) : this.#llm;
    this.#results = new JsonlFile(join(options.outDir, 'results.jsonl'));
  }

  async run(): Promise<EvalRunResult> {
    const o = this.#options;
    const signal = o.signal;
    this.#progress('read', 0, 1, `reading ${o.datasetPath}`);
    const dataset = await readDataset(o.datasetPath, {
      format: o.format,
      ...(o.datasetName ? { name: o.datasetName } : {}),
      ...(o.datasetLanguage ? { language: o.datasetLanguage } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o.sample ? { sample: o.sample } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.corpusPath ? { corpusPath: o.corpusPath } : {}),
      ...(o.graphPath ? { graphPath: o.graphPath } : {}),
      ...(signal ? { signal } : {}),
    });
    if (dataset.items.length === 0)
      throw new PolyhopError('BAD_INPUT', `${o.datasetPath}: the dataset has no questions`, {
        details: { file: o.datasetPath },
      });
    const kbLanguage = dataset.source.language;
    const languages = [...new Set((o.languages ?? [dataset.items[0]?.language ?? kbLanguage]).map(toLanguageCode))];
    const manifest = openRunManifest(dataset, languages, {
      outDir: o.outDir,
      strategies: o.strategies,
      baselines: o.baselines,
      seed: o.seed,
      bootstrapSamples: o.bootstrapSamples,
      models: this.#models(),
    });

    const finished = new Set(
      this.#results
        .readAll()
        .filter((r) => !r.error)
        .map(rowKey),
    );
    const units: EvalUnit[] = [];
    for (const item of dataset.items)
      for (const language of languages)
        for (const strategy of o.strategies) {
          if (finished.has(rowKey({ itemId: item.id, language, strategy }))) this.#skipped++;
          else units.push({ item, language, strategy });
        }

    if (units.length > 0) {
      const translations = await this.#translate(units, manifest, signal);
      this.#progress('index', 0, 1, `building the knowledge base (${describeSource(dataset.source)})`);
      const built = await this.#deps.buildKb(dataset.source, {
        fingerprint: sourceFingerprint(dataset.source),
        ...(signal ? { signal } : {}),
        onProgress: (p) => this.#progress('index', p.done, p.total, p.message),
      });
      if (!built.reused || !manifest.indexing) {
        manifest.indexing = {
          passages: manifest.dataset.passages,
          cost: built.cost ?? ZERO_COST,
          reused: built.reused,
        };
        this.#saveManifest(manifest);
      }
      await this.#askAll(units, translations, built.kb, dataset, kbLanguage);
    }

    let report: EvalReport | null = null;
    if (o.report !== false) {
      throwIfAborted(signal);
      this.#progress('report', 0, 1, 'writing the report');
      report = await writeEvalReport(o.outDir, {
        samples: o.bootstrapSamples ?? BOOTSTRAP_DEFAULTS.samples,
        seed: o.seed ?? BOOTSTRAP_DEFAULTS.seed,
      });
      this.#progress('report', 1, 1, `report written to ${join(o.outDir, 'report.md')}`);
    }
    return { outDir: o.outDir, asked: units.length, skipped: this.#skipped, failed: this.#failed, report };
  }

  async #translate(
    units: readonly EvalUnit[],
    manifest: EvalManifest,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, TranslatedItem | Error>> {
    const needed = new Map<string, { item: EvalItem; language: string }>();
    for (const u of units) needed.set(JSON.stringify([u.item.id, u.language]), { item: u.item, language: u.language });
    const out = new Map<string, TranslatedItem | Error>();
    let done = 0;
    for (const [key, { item, language }] of needed) {
      throwIfAborted(signal);
      this.#progress('translate', done++, needed.size, `translating question ${item.id} into ${language}`);
      try {
        if (!this.#llm && language !== item.language && !item.translations?.[language]) {
          throw new PolyhopError(
            'UNSUPPORTED',
            `no generation model to translate question ${item.id} into ${language}`,
          );
        }
        const t = await translateItem(this.#llm as Llm, this.#deps.prompts, item, language, signal);
        if (t.usage) addUsage(manifest.translation, t.usage);
        out.set(key, t);
      } catch (error) {
        if (isCancellation(error)) throw error;
        out.set(key, error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.#saveManifest(manifest);
    this.#progress('translate', needed.size, needed.size, 'questions translated');
    return out;
  }

  async #askAll(
    units: readonly EvalUnit[],
    translations: Map<string, TranslatedItem | Error>,
    kb: K,
    dataset: EvalDataset,
    kbLanguage: string,
  ): Promise<void> {
    const o = this.#options;
    const signal = o.signal;
    const judge =
      o.judge !== false && this.#judgeLlm ? { llm: this.#judgeLlm, prompts: this.#deps.prompts } : undefined;
    const context: AskAndScoreContext<K> = {
      ask: (kb, request) => this.#deps.ask(kb, request),
      kb,
      dataset,
      kbLanguage,
      judge,
      embedder: this.#deps.similarity?.embedder,
      recallAt: o.recallAt,
      signal,
    };
    let next = 0;
    let done = 0;
    let stop: unknown;
    const worker = async (): Promise<void> => {
      while (stop === undefined && next < units.length) {
        const unit = units[next++] as EvalUnit;
        try {
          throwIfAborted(signal);
          const translated = translations.get(JSON.stringify([unit.item.id, unit.language])) as TranslatedItem | Error;
          const row = await askAndScore(unit, translated, context);
          if (stop !== undefined) return; // cancelled meanwhile: leave the row for the resume
          this.#results.append(row);
          if (row.error) this.#failed++;
          done++;
          this.#progress(
            'ask',
            done,
            units.length,
            `${unit.strategy} · ${unit.language} · ${unit.item.id}${row.error ? ` failed: ${row.error.message}` : ''}`,
          );
        } catch (error) {
          stop ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 1, units.length)) }, worker));
    if (stop !== undefined) throw stop;
  }

  /** Which models answered, judged and embedded, for the report beside the papers' models. */
  #models(): EvalManifest['models'] {
    const judged = this.#options.judge !== false && this.#judgeLlm;
    return {
      ...(this.#deps.llm ? { generation: this.#deps.llm.identity } : {}),
      ...(judged ? { judge: (this.#deps.judgeLlm ?? this.#deps.llm)?.identity ?? '' } : {}),
      ...(this.#deps.similarity ? { similarity: this.#deps.similarity.name } : {}),
    };
  }

  #saveManifest(manifest: EvalManifest): void {
    saveRunManifest(this.#options.outDir, manifest);
  }

  #progress(stage: EvalStage, done: number, total: number, message: string): void {
    this.#options.onProgress?.({ stage, done, total, message, skipped: this.#skipped, failed: this.#failed });
  }
}

function describeSource(source: EvalKbSource): string {
  return source.kind === 'rdf' ? `graph ${source.path}` : `${source.passages.length} passages`;
}
