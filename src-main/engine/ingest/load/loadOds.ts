import type { LoadedText } from '../types.js';
import type { LoadSpreadsheetOptions } from './loadXlsx.js';
import { withOfficeArchive } from './officeArchive.js';
import { CellBudget, workbookText, type Sheet } from './sheetText.js';
import { localName, parseXml } from './xmlStream.js';
import type { ZipSource } from './zipArchive.js';

const KIND = 'ODS';
/** Beyond this many repeats an empty row or cell is not expanded (LibreOffice pads sheets to 1,048,576 rows). */
const MAX_REPEAT = 1 << 20;

/**
 * Text of an OpenDocument spreadsheet: each `table:table` in order as a table (see
 * `sheetText`). A cell's value is its displayed text, dates as their ISO `office:date-value`;
 * repeated rows and cells (`number-rows-repeated`, `number-columns-repeated`) are counted
 * against `maxCells` before they are expanded, and empty ones are never expanded; annotations
 * (cell comments) are left out.
 */
export function loadOds(source: ZipSource, path: string, options: LoadSpreadsheetOptions = {}): Promise<LoadedText> {
  const budget = new CellBudget(path, options.maxCells);
  return withOfficeArchive(source, path, KIND, 'content.xml', options, async (archive) => {
    const sheets = (await archive.part('content.xml', (xml) => readTables(xml, budget)))!;
    return { text: workbookText(sheets), mime: 'application/vnd.oasis.opendocument.spreadsheet' };
  });
}

const repeat = (value: string | undefined) => Math.min(MAX_REPEAT, Math.max(1, Number(value) || 1));

function readTables(xml: Buffer, budget: CellBudget): Sheet[] {
  const sheets: Sheet[] = [];
  let sheet: Sheet | null = null;
  let row: { cells: (string | undefined)[]; column: number; repeat: number } | null = null;
  let cell: { repeat: number; date?: string; value?: string; parts: string[]; paragraphs: number } | null = null;
  let skip = 0;
  parseXml(xml, {
    onopentag(name, attrs) {
      if (skip > 0) {
        skip++;
        return;
      }
      const tag = localName(name);
      if (tag === 'table' && name.startsWith('table:')) {
        sheet = { name: attrs['table:name'] ?? `Sheet ${sheets.length + 1}`, rows: [] };
      } else if (tag === 'table-row' && sheet) {
        row = { cells: [], column: 0, repeat: repeat(attrs['table:number-rows-repeated']) };
      } else if ((tag === 'table-cell' || tag === 'covered-table-cell') && row) {
        cell = {
          repeat: repeat(attrs['table:number-columns-repeated']),
          ...(attrs['office:date-value'] ? { date: attrs['office:date-value'].replace(/T00:00:00$/, '') } : {}),
          ...(attrs['office:value'] ? { value: attrs['office:value'] } : {}),
          parts: [],
          paragraphs: 0,
        };
      } else if (tag === 'annotation' && cell) skip = 1;
      else if (cell) {
        if (tag === 'p' && cell.paragraphs++ > 0) cell.parts.push(' ');
        else if (tag === 's') cell.parts.push(' '.repeat(Math.min(100, repeat(attrs['text:c']))));
        else if (tag === 'tab' || tag === 'line-break') cell.parts.push(' ');
      }
    },
    ontext(text) {
      if (cell && skip === 0) cell.parts.push(text);
    },
    onclosetag(name) {
      if (skip > 0) {
        skip--;
        return;
      }
      const tag = localName(name);
      if ((tag === 'table-cell' || tag === 'covered-table-cell') && row && cell) {
        const shown = cell.parts.join('').trim();
        const value = cell.date ?? (shown || cell.value);
        if (value) {
          budget.take(cell.repeat * row.repeat);
          for (let i = 0; i < cell.repeat; i++) row.cells[row.column + i] = value;
        }
        row.column += cell.repeat;
        cell = null;
      } else if (tag === 'table-row' && row && sheet) {
        if (row.cells.length > 0) for (let i = 0; i < row.repeat; i++) sheet.rows.push(row.cells);
        row = null;
      } else if (tag === 'table' && name.startsWith('table:') && sheet) {
        sheets.push(sheet);
        sheet = null;
      }
    },
  });
  return sheets;
}
