import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer, Citation, StrategyName } from '../qa/Answer.js';
import { throwIfAborted } from '../base/abort.js';
import { isCancellation, PolyhopError, toErrorData } from '../base/errors.js';
import { hashParts, sha256Hex } from '../base/hash.js';
import { CachingLlm } from '../models/CachingLlm.js';
import type { Embedder } from '../models/Embedder.js';
import type { Llm, LlmUsage } from '../models/Llm.js';
import type { PromptLibrary } from '../models/PromptLibrary.js';
import { readDataset } from './datasets/readDataset.js';
import { toLanguageCode } from './datasets/languageCode.js';
import type { EvalManifest } from './EvalManifest.js';
import { rowKey, ZERO_COST, type EvalCost, type EvalResultRow } from './EvalResultRow.js';
import { FileCallCacheStore } from './FileCallCacheStore.js';
import { JsonlFile } from './JsonlFile.js';
import { answerScriptFor } from './metrics/answerScript.js';
import { failedScores, scoreAnswer } from './metrics/scoreAnswer.js';
import { writeEvalReport, type EvalReport } from './report.js';
import { BOOTSTRAP_DEFAULTS } from './stats/bootstrap.js';
import { translateItem, type TranslatedItem } from './translateItem.js';
import type { DatasetFormat, EvalDataset, EvalItem, EvalKbSource } from './types.js';

/** The knowledge base a run asks its questions against, as the caller built it. */
export interface EvalKb {
  /** For the manifest and logs. */
  readonly name: string;
  /** The dataset passage (EvalPassage.id) a citation points at; undefined for anything else. Drives recall@k. */
  passageIdOf(citation: Citation): string | undefined;
}

export interface BuildKbOptions {
  /** Hash of the source: the same fingerprint may reuse a KB built before. */
  fingerprint: string;
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; total: number; message: string }) => void;
}

export interface BuiltKb<K extends EvalKb> {
  kb: K;
  /** True when an existing KB was reused and nothing was indexed. */
  reused: boolean;
  /** Indexing cost (LLM calls, tokens, wall time). */
  cost?: EvalCost;
}

export interface AskRequest {
  question: string;
  strategy: StrategyName;
  /** The language the answer must be in: the question's. */
  answerLanguage: string;
  signal?: AbortSignal;
}

/**
 * What a run needs from the rest of the engine, passed in so eval depends on no particular
 * QA or indexing implementation (the Api wires `qa.ask` and an MDER indexing job).
 */
export interface EvalDependencies<K extends EvalKb = EvalKb> {
  /** Builds, or reuses by fingerprint, the KB of the dataset's passages; imports the graph for an `rdf` source. */
  buildKb(source: EvalKbSource, options: BuildKbOptions): Promise<BuiltKb<K>>;
  /** Answers one question with one strategy (`qa.ask`). */
  ask(kb: K, request: AskRequest): Promise<Answer>;
  /** Translates questions and judges answers; null: no judge, and only the dataset's own (or shipped) languages. */
  llm: Llm | null;
  /** The judge, when it is another model than `llm` (the papers judged with a stronger model than the one under test). Default: `llm`. */
  judgeLlm?: Llm;
  prompts: PromptLibrary;
  /** Embedding similarity when given, with the model's name for the report (e.g. `all-MiniLM-L6-v2`). */
  similarity?: { embedder: Embedder; name: string };
}

export type EvalStage = 'read' | 'translate' | 'index' | 'ask' | 'report';

export interface EvalProgress {
  stage: EvalStage;
  done: number;
  total: number;
  message: string;
  /** Rows found finished in `outDir` and skipped. */
  skipped: number;
  /** Rows whose answer failed so far. */
  failed: number;
}

export interface EvalRunOptions {
  datasetPath: string;
  format: DatasetFormat;
  strategies: StrategyName[];
  /** Languages to ask in; each question is translated into those it is not written in. Default: the dataset's language. */
  languages?: string[];
  /** Questions to use. Default: all. */
  limit?: number;
  /** Which questions `limit` keeps. Default: `first`. */
  sample?: 'first' | 'random';
  /** Run folder: run.json, results.jsonl, llm-cache.jsonl, report.md, summary.json, charts/. */
  outDir: string;
  /** Report label of the dataset. Default: the format or file name. */
  datasetName?: string;
  /** Language of the dataset's questions when the file does not say. */
  datasetLanguage?: string;
  /** A HippoRAG corpus to index instead of the questions' own paragraphs. */
  corpusPath?: string;
  /** MSE-KG graph file. Default: Output.ttl beside the questions. */
  graphPath?: string;
  /** Baselines for Δ% in the report. Default: `vector`, `llm-only`. */
  baselines?: StrategyName[];
  /** LLM-as-judge (needs `llm`). Default: true. */
  judge?: boolean;
  /** Recall@k cut-offs. Default: [2, 5]. */
  recallAt?: number[];
  /** Questions in flight at once. Default: 1 (each strategy already spreads its calls over the model's sequences). */
  concurrency?: number;
  /** Seed of the sample and the bootstrap. Default: 1. */
  seed?: number;
  /** Bootstrap resamples. Default: 10,000. */
  bootstrapSamples?: number;
  /** Write report.md and charts when done. Default: true. */
  report?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
}

export interface EvalRunResult {
  outDir: string;
  /** Rows asked in this call. */
  asked: number;
  /** Rows found finished and skipped. */
  skipped: number;
  /** Rows of this call whose answer failed (kept with `error`, retried by the next resume). */
  failed: number;
  report: EvalReport | null;
}

interface Unit {
  item: EvalItem;
  language: string;
  strategy: StrategyName;
}

const DEFAULT_BASELINES: StrategyName[] = ['vector', 'llm-only'];

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
    const manifest = this.#openManifest(dataset, languages);

    const finished = new Set(
      this.#results
        .readAll()
        .filter((r) => !r.error)
        .map(rowKey),
    );
    const units: Unit[] = [];
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
    units: readonly Unit[],
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
    units: readonly Unit[],
    translations: Map<string, TranslatedItem | Error>,
    kb: K,
    dataset: EvalDataset,
    kbLanguage: string,
  ): Promise<void> {
    const signal = this.#options.signal;
    let next = 0;
    let done = 0;
    let stop: unknown;
    const worker = async (): Promise<void> => {
      while (stop === undefined && next < units.length) {
        const unit = units[next++] as Unit;
        try {
          throwIfAborted(signal);
          const translated = translations.get(JSON.stringify([unit.item.id, unit.language])) as TranslatedItem | Error;
          const row = await this.#askOne(unit, translated, kb, dataset, kbLanguage);
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
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(this.#options.concurrency ?? 1, units.length)) }, worker),
    );
    if (stop !== undefined) throw stop;
  }

  async #askOne(
    unit: Unit,
    translated: TranslatedItem | Error,
    kb: K,
    dataset: EvalDataset,
    kbLanguage: string,
  ): Promise<EvalResultRow> {
    const { item, language, strategy } = unit;
    const o = this.#options;
    const judge =
      o.judge !== false && this.#judgeLlm ? { llm: this.#judgeLlm, prompts: this.#deps.prompts } : undefined;
    const similarity = this.#deps.similarity?.embedder;
    const scoreOptions = {
      ...(judge ? { judge } : {}),
      ...(similarity ? { embedder: similarity } : {}),
      ...(o.recallAt ? { recallAt: o.recallAt } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    };
    const base = {
      v: 1 as const,
      dataset: dataset.name,
      itemId: item.id,
      strategy,
      language,
      condition: language === kbLanguage ? ('match' as const) : ('mismatch' as const),
      ...(item.supportingPassageIds ? { supportingPassageIds: item.supportingPassageIds } : {}),
    };
    if (translated instanceof Error) {
      return {
        ...base,
        question: item.question,
        translatedBy: 'llm',
        references: item.answers,
        answer: null,
        citedPassageIds: [],
        trace: [],
        scores: failedScores(item, scoreOptions),
        cost: ZERO_COST,
        evalCost: ZERO_COST,
        error: { code: toErrorData(translated).code, message: `translation failed: ${translated.message}` },
        finishedAt: new Date().toISOString(),
      };
    }
    const asked = {
      ...base,
      question: translated.question,
      ...(translated.by !== 'original' ? { originalQuestion: item.question } : {}),
      translatedBy: translated.by,
      references: translated.answers,
    };
    let answer: Answer;
    try {
      answer = await this.#deps.ask(kb, {
        question: translated.question,
        strategy,
        answerLanguage: language,
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      const data = toErrorData(error);
      return {
        ...asked,
        answer: null,
        citedPassageIds: [],
        trace: [],
        scores: failedScores(item, scoreOptions),
        cost: ZERO_COST,
        evalCost: ZERO_COST,
        error: { code: data.code, message: data.message },
        finishedAt: new Date().toISOString(),
      };
    }
    const citedPassageIds = citedPassages(answer, kb);
    const scored = await scoreAnswer(
      {
        question: translated.question,
        references: translated.answers,
        response: answer.text,
        ...(answer.shortAnswer !== undefined ? { shortAnswer: answer.shortAnswer } : {}),
        language,
        script: answerScriptFor(dataset.format),
        citedPassageIds,
        ...(item.supportingPassageIds ? { supportingPassageIds: item.supportingPassageIds } : {}),
      },
      scoreOptions,
    );
    const evalCost = { ...ZERO_COST };
    for (const u of scored.usage) addUsage(evalCost, u);
    return {
      ...asked,
      answer: answer.text,
      ...(answer.shortAnswer !== undefined ? { shortAnswer: answer.shortAnswer } : {}),
      answerLanguage: answer.answerLanguage,
      citedPassageIds,
      trace: answer.trace.map((s) => ({
        step: s.step,
        llmCalls: s.llmCalls,
        promptTokens: s.promptTokens,
        completionTokens: s.completionTokens,
        ms: Math.round(s.ms),
      })),
      scores: scored.scores,
      ...(scored.judge ? { judge: scored.judge } : {}),
      ...(scored.judgeError ? { judgeError: scored.judgeError } : {}),
      cost: {
        llmCalls: answer.usage.llmCalls,
        promptTokens: answer.usage.promptTokens,
        completionTokens: answer.usage.completionTokens,
        cacheHits: answer.usage.cacheHits,
        ms: Math.round(answer.usage.ms),
      },
      evalCost,
      finishedAt: new Date().toISOString(),
    };
  }

  #openManifest(dataset: EvalDataset, languages: string[]): EvalManifest {
    const o = this.#options;
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
        models: this.#models(),
        updatedAt: now,
      };
      this.#saveManifest(merged);
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
      models: this.#models(),
      seed: o.seed ?? BOOTSTRAP_DEFAULTS.seed,
      bootstrapSamples: o.bootstrapSamples ?? BOOTSTRAP_DEFAULTS.samples,
      startedAt: now,
      updatedAt: now,
      translation: { ...ZERO_COST },
    };
    this.#saveManifest(manifest);
    return manifest;
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
    manifest.updatedAt = new Date().toISOString();
    writeFileSync(join(this.#options.outDir, 'run.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }

  #progress(stage: EvalStage, done: number, total: number, message: string): void {
    this.#options.onProgress?.({ stage, done, total, message, skipped: this.#skipped, failed: this.#failed });
  }
}

/** Distinct dataset passages cited by the answer, in evidence rank order. */
function citedPassages(answer: Answer, kb: EvalKb): string[] {
  const out: string[] = [];
  for (const e of answer.evidence)
    for (const c of e.citations) {
      const id = kb.passageIdOf(c);
      if (id !== undefined && !out.includes(id)) out.push(id);
    }
  return out;
}

/** Hash of what the KB is built from: passages by id and text, or the graph file's bytes. */
export function sourceFingerprint(source: EvalKbSource): string {
  if (source.kind === 'rdf') return hashParts(['rdf', source.format, sha256Hex(readFileSync(source.path))]);
  return hashParts(['passages', source.language, ...source.passages.flatMap((p) => [p.id, p.title, p.text])]);
}

function describeSource(source: EvalKbSource): string {
  return source.kind === 'rdf' ? `graph ${source.path}` : `${source.passages.length} passages`;
}

function addUsage(total: EvalCost, usage: LlmUsage): void {
  if (usage.cached) total.cacheHits++;
  else {
    total.llmCalls++;
    total.promptTokens += usage.promptTokens;
    total.completionTokens += usage.completionTokens;
    total.ms += Math.round(usage.durationMs);
  }
}

function union<T>(a: readonly T[], b: readonly T[]): T[] {
  return [...new Set([...a, ...b])];
}
