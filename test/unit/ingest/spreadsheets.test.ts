import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writeZip } from '../../support/zipWriter.js';
import { refusal } from './refusal.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('sheets');
/** Written by LibreOffice from the flat ODS in generate.sh (two sheets, dates, a number, an empty cell). */
const PRODUCERS = join(import.meta.dirname, '../../fixtures/producers');
const fixture = (name: string) => join(PRODUCERS, name);

const PEOPLE = [
  'Sheet: Members',
  'Name: Ada Kestrel; Born: 1890-03-04; Club: Marlow Rowing Club; Boats: 12',
  'Name: Bruno Ravenworth; Born: 1902-11-21; Boats: 3',
  'Name: Clara Whitlow; Born: 1911-06-30; Club: Henley Boat Club; Boats: 7',
  '',
  'Sheet: Clubs',
  'Club: Marlow Rowing Club; Town: Marlow',
  'Club: Henley Boat Club; Town: Henley-on-Thames',
].join('\n');
/** Cells holding values in people.xlsx / people.ods. */
const PEOPLE_CELLS = 21;

/** An ODS whose content.xml is the given table rows. */
const ods = (rows: string) =>
  writeZip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', compress: false },
    {
      name: 'content.xml',
      data: `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="Big">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
    },
  ]);

describe('spreadsheets: each sheet a table, each row its values together under their headers', () => {
  it.each(['people.xlsx', 'people.ods'])(
    '%s from LibreOffice: sheets in order, dates as ISO dates, empty cells left out',
    async (name) => {
      const doc = await loadDocument(fixture(name));
      expect(doc.text).toBe(PEOPLE);
      expect(doc.mime).toMatch(name.endsWith('xlsx') ? /spreadsheetml/ : /opendocument\.spreadsheet/);
    },
  );

  it('CSV: delimiter found, quotes and a BOM handled, a sheet named after the file', async () => {
    const csv =
      '\ufeffName;Born;Note\r\nAda Kestrel;1890-03-04;"rows; boats"\r\n"Bruno ""Bo"" Ravenworth";1902-11-21;\r\n';
    expect((await loadDocument(put('members.csv', csv))).text).toBe(
      [
        'Sheet: members',
        'Name: Ada Kestrel; Born: 1890-03-04; Note: rows; boats',
        'Name: Bruno "Bo" Ravenworth; Born: 1902-11-21',
      ].join('\n'),
    );
  });

  it('a first row of numbers is not a header: values joined as they are', async () => {
    expect((await loadDocument(put('numbers.tsv', '1\t2\t3\n4\t5\t6\n'))).text).toBe(
      'Sheet: numbers\n1; 2; 3\n4; 5; 6',
    );
  });

  it.each(['people.xlsx', 'people.ods'])('%s: refused one cell past the cell limit, read at it', async (name) => {
    const e = await refusal(fixture(name), { maxSheetCells: PEOPLE_CELLS - 1 });
    expect(e.details).toMatchObject({ limit: 'sheetCells', maxCells: PEOPLE_CELLS - 1 });
    expect((await loadDocument(fixture(name), { maxSheetCells: PEOPLE_CELLS })).text).toBe(PEOPLE);
  });

  it('an ODS whose few bytes repeat a cell over a million rows is refused at the limit, not expanded', async () => {
    const row = `<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="1024" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row>`;
    const e = await refusal(put('huge.ods', ods(row)));
    expect(e.details).toMatchObject({ limit: 'sheetCells', maxCells: 2_000_000 });
  });

  it('a CSV past the cell limit is refused', async () => {
    const e = await refusal(put('wide.csv', 'a,b,c\n1,2,3\n4,5,6\n'), { maxSheetCells: 8 });
    expect(e.details).toMatchObject({ limit: 'sheetCells' });
  });

  it.each(['people.xlsx', 'people.ods'])('%s cut short is a corrupt zip, named', async (name) => {
    const bytes = readFileSync(fixture(name));
    const e = await refusal(put(`cut-${name}`, bytes.subarray(0, Math.floor(bytes.length / 2))));
    expect(e.details['reason']).toMatch(/corrupt zip archive/);
  });

  it('a zip without the workbook is not taken for a spreadsheet', async () => {
    const e = await refusal(put('empty.xlsx', writeZip([{ name: 'a.txt', data: 'hello' }])));
    expect(e.details['reason']).toBe('not a XLSX file (no xl/workbook.xml in the archive)');
  });
});
