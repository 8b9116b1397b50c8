import { badInput } from '../badInput.js';

/** One sheet of a workbook: its name and its rows, each a sparse list of cell values by column. */
export interface Sheet {
  name: string;
  rows: (string | undefined)[][];
}

export const DEFAULT_MAX_SHEET_CELLS = 2_000_000;

/**
 * Counts a workbook's cells as they are read, refusing past `maxCells` before a row or a
 * repeated cell is expanded (an OpenDocument row can claim a million repeats in a few bytes).
 */
export class CellBudget {
  private used = 0;
  constructor(
    private readonly path: string,
    readonly maxCells: number = DEFAULT_MAX_SHEET_CELLS,
  ) {}

  take(cells: number): void {
    this.used += cells;
    if (this.used > this.maxCells)
      throw badInput(this.path, `spreadsheet has more than ${this.maxCells.toLocaleString('en')} cells with values`, {
        details: { limit: 'sheetCells', maxCells: this.maxCells },
      });
  }
}

const NUMERIC = /^[-+]?[\d.,\s%€$£¥]+$/;

/**
 * A sheet as text that keeps each row's values together: "Sheet: People", then one line per
 * row. When the first non-empty row reads as a header (two or more cells, none of them
 * numbers) and rows follow it, each row is "Name: Ada; Born: 1890-03-04" (empty cells left
 * out, a header cell that is empty named by its column letter); otherwise the row's values
 * are joined with "; ".
 */
export function sheetText(sheet: Sheet): string {
  const rows = sheet.rows
    .map((row) => row.map((v) => (v === undefined ? undefined : v.replace(/\s+/g, ' ').trim() || undefined)))
    .filter((row) => row.some((v) => v !== undefined));
  if (rows.length === 0) return '';
  const first = rows[0]!;
  const filled = first.filter((v) => v !== undefined);
  const header = rows.length > 1 && filled.length >= 2 && filled.every((v) => !NUMERIC.test(v!)) ? first : undefined;
  const lines = [`Sheet: ${sheet.name}`];
  for (const row of header ? rows.slice(1) : rows) {
    const cells: string[] = [];
    row.forEach((value, column) => {
      if (value === undefined) return;
      cells.push(header ? `${header[column] ?? columnLetters(column)}: ${value}` : value);
    });
    lines.push(cells.join('; '));
  }
  return lines.join('\n');
}

/** 0 → A, 25 → Z, 26 → AA. */
export function columnLetters(column: number): string {
  let s = '';
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A → 0, AA → 26; the letters of a cell reference such as `AB12`; undefined when there are none. */
export function columnIndex(reference: string): number | undefined {
  const letters = /^[A-Z]+/i.exec(reference)?.[0];
  if (!letters) return undefined;
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** The workbook's text: its non-empty sheets in order, a blank line between them. */
export function workbookText(sheets: readonly Sheet[]): string {
  return sheets
    .map(sheetText)
    .filter((t) => t)
    .join('\n\n');
}
