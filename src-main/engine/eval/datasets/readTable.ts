import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { throwIfAborted } from '../../base/abort.js';
import { PolyhopError } from '../../base/errors.js';
import { answerList, type PendingItem } from './PendingItem.js';
import { badInput, parseRecord, readJsonLines, type RecordPlace } from './records.js';
import { toLanguageCode } from './languageCode.js';

/**
 * The generic row both CSV and JSONL files use: `question`, `answers` (a list; in CSV a JSON
 * array or `|`-separated text; `answer` is accepted too), optional `id`, `language`, `context`, `title`.
 */
const TableRow = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    question: z.string().trim().min(1, 'question is empty'),
    answers: z.union([z.array(z.string()), z.string()]).optional(),
    answer: z.string().optional(),
    language: z.string().optional(),
    context: z.string().optional(),
    title: z.string().optional(),
  })
  .refine((r) => r.answers !== undefined || r.answer !== undefined, {
    message: 'needs "answers" or "answer"',
    path: ['answers'],
  });

function tableItem(
  value: unknown,
  place: RecordPlace,
  ordinal: number,
  defaultLanguage: string,
  splitText: (s: string) => string[],
): PendingItem {
  const r = parseRecord(TableRow, value, place);
  const answers = answerList(typeof r.answers === 'string' ? splitText(r.answers) : r.answers, r.answer);
  if (answers.length === 0) throw badInput(place, 'no non-empty answer');
  const id = r.id === undefined || r.id === '' ? `record-${ordinal + 1}` : String(r.id);
  const language = r.language ? toLanguageCode(r.language) : defaultLanguage;
  const context = r.context?.trim() ? r.context : undefined;
  return {
    id,
    build(passages) {
      if (!context) return { id, question: r.question, answers, language };
      const passageId = passages.add(r.title?.trim() || id, context);
      return { id, question: r.question, answers, language, context, supportingPassageIds: [passageId] };
    },
  };
}

/** CSV answers: a JSON array (`["Rome","Roma"]`) or `|`-separated text. */
function splitCsvAnswers(text: string): string[] {
  const t = text.trim();
  if (t.startsWith('[')) {
    try {
      const list = z.array(z.string()).parse(JSON.parse(t));
      return list;
    } catch {
      // not JSON after all: fall through to `|`
    }
  }
  return t.split('|');
}

/** Streams a generic JSONL file (one `{question, answers, …}` per line). */
export async function readJsonlTable(
  file: string,
  language: string,
  limit: number | undefined,
  signal?: AbortSignal,
): Promise<PendingItem[]> {
  const out: PendingItem[] = [];
  for await (const { value, line } of readJsonLines(file, signal)) {
    out.push(tableItem(value, { file, line }, out.length, language, (s) => [s]));
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}

/** Streams a CSV file with a header row naming the columns (RFC 4180 quoting, BOM tolerated). */
export async function readCsvTable(
  file: string,
  language: string,
  limit: number | undefined,
  signal?: AbortSignal,
): Promise<PendingItem[]> {
  const input = createReadStream(file);
  const parser = input.pipe(
    parse({ columns: true, bom: true, skip_empty_lines: true, trim: true, info: true, relax_column_count: false }),
  );
  const out: PendingItem[] = [];
  try {
    for await (const entry of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      throwIfAborted(signal);
      const { record, info } = entry;
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) if (v !== '') row[k.toLowerCase()] = v;
      out.push(tableItem(row, { file, line: info.lines }, out.length, language, splitCsvAnswers));
      if (limit !== undefined && out.length >= limit) break;
    }
  } catch (error) {
    if (error instanceof PolyhopError) throw error;
    const e = error as { code?: string; lines?: number; message?: string };
    if (e.code === 'ENOENT')
      throw new PolyhopError('NOT_FOUND', `${file}: cannot read the dataset file`, { details: { file }, cause: error });
    throw badInput(
      e.lines === undefined ? { file } : { file, line: e.lines },
      `not valid CSV (${e.message ?? String(error)})`,
      error,
    );
  } finally {
    input.destroy();
  }
  return out;
}
