import type { LoadedText } from '../types.js';
import {
  relationshipTargets,
  withOfficeArchive,
  type OfficeArchive,
  type OfficeArchiveOptions,
} from './officeArchive.js';
import { CellBudget, columnIndex, workbookText, type Sheet } from './sheetText.js';
import { localName, parseXml } from './xmlStream.js';
import type { ZipSource } from './zipArchive.js';

export interface LoadSpreadsheetOptions extends OfficeArchiveOptions {
  /** Workbooks with more cells holding values are refused. Default: 2,000,000. */
  maxCells?: number;
}

const KIND = 'XLSX';
/** Built-in number formats that show dates (ECMA-376 §18.8.30). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);
const DAY_MS = 86_400_000;
/** Excel's last column is XFD (16,384); a reference beyond it lands there instead of growing a row without end. */
const MAX_COLUMNS = 16_383;

/**
 * Text of an XLSX workbook: each sheet in the workbook's order as a table (see `sheetText`),
 * shared and inline strings resolved, dates shown as ISO dates (from the cell's number format),
 * booleans as TRUE/FALSE, formulas by their cached value. Cells are counted as they are read
 * and the workbook is refused past `maxCells`.
 */
export function loadXlsx(source: ZipSource, path: string, options: LoadSpreadsheetOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, KIND, 'xl/workbook.xml', options, (archive) =>
    workbookOf(archive, new CellBudget(path, options.maxCells)),
  );
}

async function workbookOf(archive: OfficeArchive, budget: CellBudget): Promise<LoadedText> {
  const workbook = (await archive.part('xl/workbook.xml', readWorkbook))!;
  const targets = relationshipTargets(await archive.read('xl/_rels/workbook.xml.rels'), 'xl/');
  const strings = (await archive.part('xl/sharedStrings.xml', readSharedStrings)) ?? [];
  const dateStyles = (await archive.part('xl/styles.xml', readDateStyles)) ?? new Set<number>();
  const sheets: Sheet[] = [];
  for (const { name, relId } of workbook.sheets) {
    const target = targets.get(relId);
    if (!target) continue;
    const rows = await archive.part(target, (xml) =>
      readSheet(xml, { strings, dateStyles, epochDays: workbook.date1904 ? 24_107 : 25_569, budget }),
    );
    if (rows) sheets.push({ name, rows });
  }
  return { text: workbookText(sheets), mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
}

function readWorkbook(xml: Buffer): { sheets: { name: string; relId: string }[]; date1904: boolean } {
  const sheets: { name: string; relId: string }[] = [];
  let date1904 = false;
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if (tag === 'workbookPr') date1904 = attrs['date1904'] === '1' || attrs['date1904'] === 'true';
      else if (tag === 'sheet') {
        const relId = Object.entries(attrs).find(([k]) => localName(k) === 'id' && k.includes(':'))?.[1];
        if (relId) sheets.push({ name: attrs['name'] ?? `Sheet ${sheets.length + 1}`, relId });
      }
    },
  });
  return { sheets, date1904 };
}

/** The shared strings, each `<si>`'s runs joined; phonetic readings (`rPh`) left out. */
function readSharedStrings(xml: Buffer): string[] {
  const strings: string[] = [];
  let current: string[] | null = null;
  let inText = 0;
  let skip = 0;
  parseXml(xml, {
    onopentag(name) {
      const tag = localName(name);
      if (tag === 'si') current = [];
      else if (tag === 'rPh') skip++;
      else if (tag === 't') inText++;
    },
    ontext(text) {
      if (current && inText > 0 && skip === 0) current.push(text);
    },
    onclosetag(name) {
      const tag = localName(name);
      if (tag === 'si' && current) {
        strings.push(current.join(''));
        current = null;
      } else if (tag === 'rPh') skip--;
      else if (tag === 't') inText--;
    },
  });
  return strings;
}

/** Indexes of `cellXfs` styles whose number format shows a date. */
function readDateStyles(xml: Buffer): Set<number> {
  const customDate = new Set<number>();
  const styles = new Set<number>();
  let inCellXfs = false;
  let xf = 0;
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if (tag === 'numFmt') {
        // A date format names days, months or years outside quoted text and [colour] brackets.
        const code = (attrs['formatCode'] ?? '').replace(/"[^"]*"|\[[^\]]*\]|\\./g, '');
        if (/[dy]|m{3,}/i.test(code) || /(^|[^h:])m+[/.-]/i.test(code)) customDate.add(Number(attrs['numFmtId']));
      } else if (tag === 'cellXfs') inCellXfs = true;
      else if (tag === 'xf' && inCellXfs) {
        const id = Number(attrs['numFmtId'] ?? 0);
        if (BUILTIN_DATE_FORMATS.has(id) || customDate.has(id)) styles.add(xf);
        xf++;
      }
    },
    onclosetag(name) {
      if (localName(name) === 'cellXfs') inCellXfs = false;
    },
  });
  return styles;
}

interface SheetContext {
  strings: readonly string[];
  dateStyles: ReadonlySet<number>;
  /** Days from the workbook's day 0 to 1970-01-01. */
  epochDays: number;
  budget: CellBudget;
}

function readSheet(xml: Buffer, ctx: SheetContext): (string | undefined)[][] {
  const rows: (string | undefined)[][] = [];
  let row: (string | undefined)[] | null = null;
  let cell: { column: number; type: string; style: number; parts: string[] } | null = null;
  let inValue = 0;
  let skip = 0;
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if (tag === 'row') {
        row = [];
      } else if (tag === 'c' && row) {
        cell = {
          column: Math.min(columnIndex(attrs['r'] ?? '') ?? row.length, MAX_COLUMNS),
          type: attrs['t'] ?? 'n',
          style: Number(attrs['s'] ?? 0),
          parts: [],
        };
      } else if (tag === 'rPh') skip++;
      else if ((tag === 'v' || tag === 't') && cell) inValue++;
    },
    ontext(text) {
      if (cell && inValue > 0 && skip === 0) cell.parts.push(text);
    },
    onclosetag(name) {
      const tag = localName(name);
      if (tag === 'rPh') skip--;
      else if (tag === 'v' || tag === 't') inValue = Math.max(0, inValue - 1);
      else if (tag === 'c' && cell && row) {
        const value = cellValue(cell.type, cell.style, cell.parts.join(''), ctx);
        if (value !== undefined && value.trim()) {
          ctx.budget.take(1);
          row[cell.column] = value;
        }
        cell = null;
      } else if (tag === 'row' && row) {
        rows.push(row);
        row = null;
      }
    },
  });
  return rows;
}

function cellValue(type: string, style: number, raw: string, ctx: SheetContext): string | undefined {
  switch (type) {
    case 's':
      return ctx.strings[Number(raw)];
    case 'b':
      return raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
    case 'n': {
      if (raw === '') return undefined;
      const n = Number(raw);
      if (!Number.isFinite(n)) return raw;
      if (ctx.dateStyles.has(style)) return serialDate(n, ctx.epochDays);
      return String(n);
    }
    default: // inlineStr, str (formula text), e (error), d (ISO date)
      return raw;
  }
}

/** A date serial as an ISO date, with the time when it has one. */
function serialDate(serial: number, epochDays: number): string {
  const date = new Date(Math.round((serial - epochDays) * DAY_MS));
  if (Number.isNaN(date.getTime())) return String(serial);
  const iso = date.toISOString();
  if (serial >= 0 && serial < 1) return iso.slice(11, 19); // a time of day alone
  return Number.isInteger(serial) ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}
