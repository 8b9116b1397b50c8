import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { missingCase } from '../../base/assert.js';
import { Prng } from '../stats/Prng.js';
import type { DatasetFormat, EvalDataset, EvalKbSource } from '../types.js';
import { PassageSet } from './PassageSet.js';
import type { PendingItem } from './PendingItem.js';
import { readAfriqa } from './readAfriqa.js';
import { readCorpus } from './readCorpus.js';
import { readDistractorRecord } from './readDistractor.js';
import { readMseKgQuestions } from './readMseKg.js';
import { readMusiqueRecord } from './readMusique.js';
import { readSquadDocument } from './readSquad.js';
import { readCsvTable, readJsonlTable } from './readTable.js';
import { readJsonDocument, readJsonLines, badInput, type RecordPlace } from './records.js';
import { languageFromFileName, toLanguageCode } from './languageCode.js';

export interface ReadDatasetOptions {
  format: DatasetFormat;
  /** Label in reports. Default: the format (`hotpotqa`, `musique`…), or the file name for csv/jsonl. */
  name?: string;
  /** Language of the questions. Default: the file's records or name (`xquad.de.json`), else `en`. */
  language?: string;
  /** Keep at most this many questions. Default: all. */
  limit?: number;
  /** Which questions `limit` keeps: the first ones, or a seeded random sample (as the MDER-DR paper). Default: `first`. */
  sample?: 'first' | 'random';
  /** Seed of the random sample. Default: 1. */
  seed?: number;
  /**
   * A HippoRAG corpus (`[{title,text}]` or `{title: sentences}`) to build the KB from instead of
   * the selected questions' own paragraphs (the full-corpus setting of HippoRAG and DaPT).
   */
  corpusPath?: string;
  /** MSE-KG: the RDF graph to import. Default: `Output.ttl` beside the questions file. */
  graphPath?: string;
  signal?: AbortSignal;
}

/**
 * Reads a benchmark into questions and the passages (or graph) its knowledge base is built from.
 * Malformed files fail with PolyhopError `BAD_INPUT` naming the file and line or record.
 */
export async function readDataset(path: string, options: ReadDatasetOptions): Promise<EvalDataset> {
  const { format, signal } = options;
  if (!existsSync(path) || !statSync(path).isFile())
    throw new PolyhopError('NOT_FOUND', `${path}: no such dataset file`, { details: { file: path } });
  const firstOnly = options.sample !== 'random' ? options.limit : undefined;
  let language = options.language ? toLanguageCode(options.language) : 'en';
  let passageLanguage: string | undefined;
  let pending: PendingItem[];
  const notes: string[] = [];
  switch (format) {
    case 'hotpotqa':
    case '2wiki':
      pending = await readRecords(
        path,
        (value, place) => readDistractorRecord(value, place, language),
        firstOnly,
        signal,
      );
      break;
    case 'musique':
      pending = await readRecords(path, (value, place) => readMusiqueRecord(value, place, language), firstOnly, signal);
      break;
    case 'hipporag-corpus':
      pending = [];
      break;
    case 'mse-kg':
      pending = await readMseKgQuestions(path);
      break;
    case 'xquad':
      if (!options.language) language = languageFromFileName(basename(path)) ?? 'en';
      pending = readSquadDocument(await readJsonDocument(path), path, language);
      break;
    case 'afriqa': {
      const read = await readAfriqa(path, signal);
      pending = read.items;
      passageLanguage = read.passageLanguage;
      if (read.unanswerable > 0) notes.push(`${read.unanswerable} questions without a reference answer were left out`);
      break;
    }
    case 'csv':
      pending = await readCsvTable(path, language, firstOnly, signal);
      break;
    case 'jsonl':
      pending = await readJsonlTable(path, language, firstOnly, signal);
      break;
    default:
      throw missingCase(format);
  }
  throwIfAborted(signal);
  assertUniqueIds(pending, path);
  const selected = select(pending, options);

  const passages = new PassageSet();
  if (options.corpusPath) await readCorpus(options.corpusPath, passages);
  else if (format === 'hipporag-corpus') await readCorpus(path, passages);
  const items = selected.map((p) => p.build(passages));
  if (options.corpusPath) {
    const known = new Set(passages.passages.map((p) => p.id));
    const missing = items.flatMap((i) =>
      (i.supportingPassageIds ?? []).filter((id) => !known.has(id)).map((id) => `${i.id}: ${id}`),
    );
    if (missing.length > 0)
      throw badInput(
        { file: options.corpusPath },
        `supporting passages missing from the corpus (${missing.slice(0, 3).join('; ')}${missing.length > 3 ? '…' : ''})`,
      );
  }
  const kbLanguage =
    passageLanguage ??
    (items.length > 0 && items.every((i) => i.language === items[0]?.language)
      ? (items[0]?.language as string)
      : language);
  let source: EvalKbSource;
  if (format === 'mse-kg') {
    const graph = options.graphPath ?? join(dirname(path), 'Output.ttl');
    if (!existsSync(graph))
      throw new PolyhopError('NOT_FOUND', `${graph}: the MSE-KG graph file is missing (pass graphPath)`, {
        details: { file: graph },
      });
    source = { kind: 'rdf', path: graph, format: rdfFormatOf(graph), language: kbLanguage };
  } else source = { kind: 'passages', passages: passages.passages, language: kbLanguage };
  return { name: options.name ?? defaultName(format, path), format, path, items, source, notes };
}

async function readRecords(
  file: string,
  read: (value: unknown, place: RecordPlace) => PendingItem,
  limit: number | undefined,
  signal?: AbortSignal,
): Promise<PendingItem[]> {
  const out: PendingItem[] = [];
  if (extname(file).toLowerCase() === '.jsonl') {
    for await (const { value, line } of readJsonLines(file, signal)) {
      out.push(read(value, { file, line }));
      if (limit !== undefined && out.length >= limit) break;
    }
    return out;
  }
  const doc = await readJsonDocument(file);
  if (!Array.isArray(doc)) throw badInput({ file }, 'expected a JSON list of questions (or a .jsonl file)');
  for (const [i, value] of doc.entries()) {
    out.push(read(value, { file, record: i }));
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}

function assertUniqueIds(items: readonly PendingItem[], file: string): void {
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (seen.has(item.id)) throw badInput({ file, record: i }, `duplicate question id "${item.id}"`);
    seen.add(item.id);
  }
}

function select(items: PendingItem[], options: ReadDatasetOptions): PendingItem[] {
  const limit = options.limit ?? items.length;
  if (options.sample !== 'random' || limit >= items.length) return items.slice(0, limit);
  const order = items.map((_, i) => i);
  new Prng(options.seed ?? 1).shuffle(order);
  return order
    .slice(0, limit)
    .sort((a, b) => a - b)
    .map((i) => items[i] as PendingItem);
}

function rdfFormatOf(file: string): 'turtle' | 'ntriples' | 'nquads' | 'rdfxml' {
  const ext = extname(file).toLowerCase();
  if (ext === '.nt') return 'ntriples';
  if (ext === '.nq') return 'nquads';
  if (ext === '.rdf' || ext === '.xml' || ext === '.owl') return 'rdfxml';
  return 'turtle';
}

function defaultName(format: DatasetFormat, path: string): string {
  if (format === 'csv' || format === 'jsonl') return basename(path).replace(/\.[^.]+$/, '');
  if (format === 'xquad') return basename(path).replace(/\.json$/i, '');
  return format;
}
