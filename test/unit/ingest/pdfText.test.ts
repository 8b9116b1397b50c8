import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writeAnnotatedPdf, writeCmapPdf } from '../../support/pdfBuilder.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('pdf-text');
/** UTF-16BE code units as hex: the codes of the UCS2 CMaps. */
const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16().toString('hex');
/**
 * The text in a legacy two-byte CJK encoding, as hex. Node decodes these encodings but cannot
 * encode them: each character's code is found by decoding every two-byte code.
 */
function encoded(text: string, encoding: string): string {
  const decoder = new TextDecoder(encoding);
  const table = new Map<string, string>();
  for (let hi = 0x81; hi <= 0xfe; hi++) for (let lo = 0x40; lo <= 0xfe; lo++) table.set(decoder.decode(Uint8Array.of(hi, lo)), `${hi.toString(16)}${lo.toString(16)}`);
  return [...text].map((c) => table.get(c)!).join('');
}

describe('PDF text', () => {
  it('non-embedded CID fonts with predefined CJK CMaps are read (PDF.js gets its CMap and standard-font data)', async () => {
    const japanese = '東京都の天気は晴れです';
    const ja = await loadDocument(put('ja.pdf', writeCmapPdf({ cmap: 'UniJIS-UCS2-H', ordering: 'Japan1', baseFont: 'KozMinPr6N-Regular', hexCodes: ucs2(japanese) })));
    expect(ja.text).toBe(japanese);
    expect(ja.language).toBe('ja');

    const chinese = '北京是中国的首都';
    const zh = await loadDocument(put('zh.pdf', writeCmapPdf({ cmap: 'GBK-EUC-H', ordering: 'GB1', baseFont: 'STSong-Light', hexCodes: encoded(chinese, 'gbk') })));
    expect(zh.text).toBe(chinese);

    const sjis = 'これは日本語の文章です';
    const sj = await loadDocument(put('sjis.pdf', writeCmapPdf({ cmap: '90ms-RKSJ-H', ordering: 'Japan1', baseFont: 'MS-Mincho', hexCodes: encoded(sjis, 'shift_jis') })));
    expect(sj.text).toBe(sjis);
  });

  it('filled form fields and annotation contents are read, on their own pages (a popup does not repeat its comment)', async () => {
    const doc = await loadDocument(
      put(
        'form.pdf',
        writeAnnotatedPdf([
          { text: 'Certificate of completion' },
          { text: 'Awarded to', fields: [{ name: 'topmostSubform[0].f1_01[0]', tooltip: 'Recipient name', value: 'Ada Kestrel' }, { name: 'course', value: 'River navigation' }] },
          { annotations: [{ subtype: 'FreeText', contents: 'Signed by Bruno Ravenworth in Marlow' }, { subtype: 'Text', contents: 'Check the date of the course' }] },
        ]),
      ),
    );
    expect(doc.pages!.map((p) => p.page)).toEqual([1, 2, 3]);
    const page = (n: number) => doc.text.slice(doc.pages![n - 1]!.startOffset, doc.pages![n]?.startOffset).trim();
    expect(page(1)).toBe('Certificate of completion');
    expect(page(2)).toBe('Awarded to\nRecipient name: Ada Kestrel\nRiver navigation');
    expect(page(3)).toBe('Signed by Bruno Ravenworth in Marlow\nCheck the date of the course');
  });

  it('a PDF whose only text is in form fields is read, not refused as having no text layer', async () => {
    const doc = await loadDocument(put('only-fields.pdf', writeAnnotatedPdf([{ fields: [{ name: 'name', tooltip: 'Taxpayer', value: 'Bruno Ravenworth' }, { name: 'city', value: 'Marlow' }] }])));
    expect(doc.text).toBe('Taxpayer: Bruno Ravenworth\nMarlow');
  });
});
