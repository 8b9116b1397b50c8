import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { unreadableReason } from '../../../src-main/engine/ingest/load/textReadability.js';
import {
  writeAnnotatedPdf,
  writeCmapPdf,
  writeContentPdf,
  writeCrowdedAnnotationsPdf,
  writeGlyphIdPdf,
  pdfString,
} from '../../support/pdfBuilder.js';
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
  for (let hi = 0x81; hi <= 0xfe; hi++)
    for (let lo = 0x40; lo <= 0xfe; lo++)
      table.set(decoder.decode(Uint8Array.of(hi, lo)), `${hi.toString(16)}${lo.toString(16)}`);
  return [...text].map((c) => table.get(c)!).join('');
}

describe('PDF text', () => {
  it('non-embedded CID fonts with predefined CJK CMaps are read (PDF.js gets its CMap and standard-font data)', async () => {
    const japanese = '東京都の天気は晴れです';
    const ja = await loadDocument(
      put(
        'ja.pdf',
        writeCmapPdf({
          cmap: 'UniJIS-UCS2-H',
          ordering: 'Japan1',
          baseFont: 'KozMinPr6N-Regular',
          hexCodes: ucs2(japanese),
        }),
      ),
    );
    expect(ja.text).toBe(japanese);
    expect(ja.language).toBe('ja');

    const chinese = '北京是中国的首都';
    const zh = await loadDocument(
      put(
        'zh.pdf',
        writeCmapPdf({
          cmap: 'GBK-EUC-H',
          ordering: 'GB1',
          baseFont: 'STSong-Light',
          hexCodes: encoded(chinese, 'gbk'),
        }),
      ),
    );
    expect(zh.text).toBe(chinese);

    const sjis = 'これは日本語の文章です';
    const sj = await loadDocument(
      put(
        'sjis.pdf',
        writeCmapPdf({
          cmap: '90ms-RKSJ-H',
          ordering: 'Japan1',
          baseFont: 'MS-Mincho',
          hexCodes: encoded(sjis, 'shift_jis'),
        }),
      ),
    );
    expect(sj.text).toBe(sjis);
  });

  it('filled form fields and annotation contents are read, on their own pages (a popup does not repeat its comment)', async () => {
    const doc = await loadDocument(
      put(
        'form.pdf',
        writeAnnotatedPdf([
          { text: 'Certificate of completion' },
          {
            text: 'Awarded to',
            fields: [
              { name: 'topmostSubform[0].f1_01[0]', tooltip: 'Recipient name', value: 'Ada Kestrel' },
              { name: 'course', value: 'River navigation' },
            ],
          },
          {
            annotations: [
              { subtype: 'FreeText', contents: 'Signed by Bruno Ravenworth in Marlow' },
              { subtype: 'Text', contents: 'Check the date of the course' },
            ],
          },
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
    const doc = await loadDocument(
      put(
        'only-fields.pdf',
        writeAnnotatedPdf([
          {
            fields: [
              { name: 'name', tooltip: 'Taxpayer', value: 'Bruno Ravenworth' },
              { name: 'city', value: 'Marlow' },
            ],
          },
        ]),
      ),
    );
    expect(doc.text).toBe('Taxpayer: Bruno Ravenworth\nMarlow');
  });

  it('a page with 32,768 annotations keeps its text and at most 1,000 annotation texts, the rest counted in a note; links give no text', async () => {
    // Half links (pdf.js's quadratic text-under-link search is never asked for), half comments.
    const doc = await loadDocument(
      put(
        'crowded.pdf',
        writeCrowdedAnnotationsPdf({ text: 'Minutes of the river club', links: 16_384, comments: 16_384 }),
      ),
    );
    const page = (n: number) => doc.text.slice(doc.pages![n - 1]!.startOffset, doc.pages![n]?.startOffset).trim();
    const lines = page(1).split('\n');
    expect(lines[0]).toBe('Minutes of the river club');
    expect(lines.slice(1)).toEqual(Array.from({ length: 1000 }, (_, i) => `note ${i + 1}`));
    expect(page(2)).toBe('Second page\nSecond page comment');
    expect(doc.warnings).toContain(
      'page 1: 15,384 of 16,384 annotation and form-field texts left out (at most 1,000 a page)',
    );
  });

  it('annotations are read in batches of pages and each stays on its page (120 pages, batches of 50)', async () => {
    const commented = new Set([1, 50, 51, 100, 120]);
    const doc = await loadDocument(
      put(
        'long-annotated.pdf',
        writeAnnotatedPdf(
          Array.from({ length: 120 }, (_, i) => ({
            text: `Page ${i + 1}`,
            ...(commented.has(i + 1)
              ? { annotations: [{ subtype: 'FreeText' as const, contents: `Note on ${i + 1}` }] }
              : {}),
          })),
        ),
      ),
    );
    const pages = doc.pages!.map((p, i) => doc.text.slice(p.startOffset, doc.pages![i + 1]?.startOffset).trim());
    expect(pages).toEqual(
      Array.from({ length: 120 }, (_, i) => `Page ${i + 1}${commented.has(i + 1) ? `\nNote on ${i + 1}` : ''}`),
    );
  });

  it('pages whose fonts have no Unicode map are left out with a warning naming them; the readable pages are kept', async () => {
    const readable = 'Ada Kestrel sailed from Marlow to Henley along the river.';
    const doc = await loadDocument(
      put(
        'glyphs.pdf',
        writeGlyphIdPdf([
          { text: readable },
          { glyphText: 'Bruno Ravenworth built the boat in the winter of that year' },
          { text: 'The boat was called Heron.' },
        ]),
      ),
    );
    expect(doc.pages!.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(doc.text).toBe(`${readable}\n\n\n\nThe boat was called Heron.`);
    expect(doc.warnings).toEqual([
      expect.stringMatching(
        /^page 2: text unreadable \(\d+% replacement or control characters; fonts without a Unicode map\?\), not indexed$/,
      ),
    ]);
  });

  it('a page partly in a font without a Unicode map keeps its readable lines, and says how many it left out', async () => {
    const doc = await loadDocument(
      put(
        'partly.pdf',
        writeGlyphIdPdf([
          {
            lines: [
              { text: 'Bruno Ravenworth built the boat in the winter of that year.' },
              { glyphText: 'The second line is in a subset font with no map at all' },
              { text: 'The boat was called Heron and sailed to Dover.' },
            ],
          },
        ]),
      ),
    );
    expect(doc.text).toContain('Bruno Ravenworth built the boat in the winter of that year.');
    expect(doc.text).toContain('The boat was called Heron and sailed to Dover.');
    expect(doc.text).not.toMatch(/[\u0000-\u0008]/);
    expect(doc.warnings).toEqual([
      'page 1: 1 of 3 lines unreadable (fonts without a Unicode map?), left out; the rest indexed',
    ]);
  });

  it('a PDF with no readable page is refused, saying why', async () => {
    const error = await loadDocument(
      put(
        'all-glyphs.pdf',
        writeGlyphIdPdf([
          { glyphText: 'Bruno Ravenworth built the boat' },
          { glyphText: 'in the winter of that year' },
        ]),
      ),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_INPUT', details: { unreadablePages: [1, 2] } });
    expect((error as Error).message).toContain('no readable text: pages 1, 2: text unreadable');
  });

  it('garbage a page can hold is not indexed: one NUL, a line overprinted four times for bold, Chinese read as Latin-1 letters', async () => {
    const readable = 'Ada Kestrel sailed from Marlow to Henley along the river.';
    // Four passes a third of a point apart: PDF.js joins the copies with no space between them.
    const overprinted = [0, 0.3, 0.6, 0.9]
      .map((dx) => `BT /F1 12 Tf ${72 + dx} 720 Td ${pdfString('Heron sailed to Henley')} Tj ET`)
      .join('\n');
    const chinese = '中华人民共和国是工人阶级领导的以工农联盟为基础的人民民主专政的社会主义国家';
    const doc = await loadDocument(
      put(
        'garbage.pdf',
        writeContentPdf([
          `BT /F1 12 Tf 72 720 Td ${pdfString(readable)} Tj ET`,
          'BT /F2 12 Tf 72 720 Td <0000> Tj ET',
          overprinted,
          `BT /F1 12 Tf 72 720 Td <${encoded(chinese, 'gbk')}> Tj ET`,
        ]),
      ),
    );
    const pages = doc.pages!.map((p, i) => doc.text.slice(p.startOffset, doc.pages![i + 1]?.startOffset).trim());
    expect(pages).toEqual([readable, '', '', '']);
    expect(doc.warnings).toEqual([expect.stringMatching(/^pages 2, 3, 4: text unreadable/)]);
  });

  it('readability: real text in any script passes; glyph ids, replacement characters and script-switching mojibake do not', () => {
    for (const text of [
      'The quick brown fox jumps over the lazy dog.',
      '東京都の天気は晴れです。明日は雨が降るでしょう。',
      'Москва — столица России, крупнейший город страны.',
      'Tokyo (東京) は日本の首都です。Windows 11 と iPhone を使う。',
      'مرحبا بكم في مدينة القاهرة الجميلة',
    ]) {
      expect(unreadableReason(text), text).toBeUndefined();
    }
    expect(unreadableReason('\u0003\u0011$HOOR\u0003ZRUOG\u0003\u0011$HOOR\u0003ZRUOG')).toMatch(/control characters/);
    expect(unreadableReason('Th\uFFFD qu\uFFFDck br\uFFFDwn f\uFFFDx j\uFFFDmps')).toMatch(/replacement/);
    expect(unreadableReason('Þαщ ζÐкη łωжς ϑÿφб ÆπЖλ Ωñдξ ψĦбκ')).toMatch(/mojibake/);
    // Too short to judge, yet nothing but a control character (a page that is one NUL).
    expect(unreadableReason('\u0000')).toMatch(/only replacement or control/);
    // Glyphs overprinted for bold, read four times over.
    expect(unreadableReason('HeronHeronHeronHeron sailedsailedsailedsailed')).toMatch(/repeated/);
    expect(unreadableReason('TTTThhhheeee  bbbbooooaaaatttt')).toMatch(/repeated/);
    // A line overprinted a text-showing op at a time; words repeated with spaces are not that.
    expect(unreadableReason('Heron sailed to Henley'.repeat(4))).toMatch(/repeated/);
    for (const text of [
      'Yes Yes Yes Yes Yes Yes Yes',
      'ha ha ha ha ha ha ha ha',
      '\t\tEM\tF1\tEM\tF1\tEM\tF1\tEM\tF1\tEM\tF1',
    ])
      expect(unreadableReason(text), text).toBeUndefined();
    // Chinese read through a guessed single-byte encoding comes out as Latin-1 letters.
    expect(unreadableReason('ÖÐ»ªÈËÃñ¹²ºÍ¹ú ÊÇ ¹¤ÈË½×¼¶Áìµ¼µÄ ÒÔ¹¤Å©ÁªÃËÎª»ù´¡µÄ')).toMatch(/Latin-1/);
    for (const text of [
      'Þórunn og Ævar fóru til Reykjavíkur í gær með ömmu sinni.',
      'Les élèves étaient déjà là, à côté de l’église où François était né.',
      'Contents ........................................ 7',
      'Mississippi banks had 1000000 visitors in 2020.',
    ]) {
      expect(unreadableReason(text), text).toBeUndefined();
    }
  });
});
