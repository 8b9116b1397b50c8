import { parse } from 'csv-parse/sync';
import { badInput } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { decodeText } from './decodeText.js';
import { basename, extname } from 'node:path';
import { CellBudget, sheetText } from './sheetText.js';

const DELIMITERS = [',', ';', '\t', '|'] as const;

/** The delimiter that splits the first line most (quoted parts left out); `,` when none does. */
function guessDelimiter(text: string, path: string): string {
  if (extname(path).toLowerCase() === '.tsv') return '\t';
  const firstLine = (text.split(/\r?\n/, 1)[0] ?? '').replace(/"[^"]*"/g, '');
  let best: string = ',';
  let most = 0;
  for (const d of DELIMITERS) {
    const n = firstLine.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

/** A CSV or TSV file as one sheet (named after the file): header-aware rows, see {@link sheetText}. */
export function loadCsv(bytes: Buffer, path: string, maxCells?: number): LoadedText & { encoding: string } {
  const { text, encoding } = decodeText(bytes, path);
  const budget = new CellBudget(path, maxCells);
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: guessDelimiter(text, path),
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      on_record: (record: string[]) => {
        budget.take(record.length);
        return record;
      },
    }) as string[][];
  } catch (error) {
    if ((error as { code?: string }).code === 'BAD_INPUT') throw error;
    throw badInput(path, `cannot read CSV (${(error as Error).message})`, { cause: error });
  }
  return {
    text: sheetText({ name: basename(path, extname(path)), rows: rows.map((r) => r.map((v) => v || undefined)) }),
    mime: extname(path).toLowerCase() === '.tsv' ? 'text/tab-separated-values' : 'text/csv',
    encoding,
  };
}
