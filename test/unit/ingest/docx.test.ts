import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src-main/engine/ingest/index.js';
import { writeZip, type ZipFileSpec } from '../../support/zipWriter.js';
import { useTmpDir } from './tmpDir.js';

const { put } = useTmpDir('docx');
const W =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"';
const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const para = (...runs: string[]) => `<w:p>${runs.join('')}</w:p>`;

/** A DOCX from WordprocessingML fragments: the body and optional parts (headers, notes, comments). */
function docx(body: string, parts: Record<string, string> = {}): Buffer {
  const files: ZipFileSpec[] = [
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
    },
  ];
  for (const [name, xml] of Object.entries(parts))
    files.push({ name, data: `<?xml version="1.0" encoding="UTF-8"?>${xml.replace('>', ` ${W}>`)}` });
  return writeZip(files);
}

describe('DOCX', () => {
  it('keeps footnotes, endnotes, comments (after the body, marked), headers and footers once, field results and ruby base text', async () => {
    const body = [
      para(
        run('Ada Kestrel founded the boating club in 1921.'),
        '<w:r><w:footnoteReference w:id="1"/></w:r>',
        run(' It moved to Henley.'),
        '<w:r><w:endnoteReference w:id="2"/></w:r>',
      ),
      // A complex field (a cross-reference): the instruction is dropped, the result kept.
      para(
        run('See page '),
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGEREF _Ref1 \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>',
        run('7'),
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
        run(' and '),
        `<w:fldSimple w:instr=" DATE ">${run('3 May 1921')}</w:fldSimple>`,
        run('.'),
      ),
      // Ruby: base text 東京, reading とうきょう above it.
      para(
        run('首都は'),
        '<w:r><w:ruby><w:rubyPr/><w:rt><w:r><w:t>とうきょう</w:t></w:r></w:rt><w:rubyBase><w:r><w:t>東京</w:t></w:r></w:rubyBase></w:ruby></w:r>',
        run('です。'),
      ),
      // A tracked deletion, and a text box with its fallback copy for old readers.
      para(run('Kept'), '<w:del><w:r><w:delText> deleted</w:delText></w:r></w:del>', run(' text.')),
      para(
        `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>${para(run('Text box.'))}</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent>${para(run('Text box.'))}</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r>`,
      ),
      `<w:tbl><w:tr><w:tc>${para(run('Year'))}</w:tc><w:tc>${para(run('Boats'))}</w:tc></w:tr><w:tr><w:tc>${para(run('1921'))}</w:tc><w:tc>${para(run('12'))}</w:tc></w:tr></w:tbl>`,
    ].join('');
    const doc = await loadDocument(
      put(
        'club.docx',
        docx(body, {
          'word/header1.xml': `<w:hdr>${para(run('Marlow Boating Club'))}</w:hdr>`,
          'word/header2.xml': `<w:hdr>${para(run('Marlow Boating Club'))}</w:hdr>`,
          'word/footer1.xml': `<w:ftr>${para(run('Page '), '<w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple>')}</w:ftr>`,
          'word/footnotes.xml': `<w:footnotes><w:footnote w:type="separator" w:id="-1">${para('<w:r><w:separator/></w:r>')}</w:footnote><w:footnote w:id="1">${para('<w:r><w:footnoteRef/></w:r>', run(' The club records were lost in 1944.'))}</w:footnote></w:footnotes>`,
          'word/endnotes.xml': `<w:endnotes><w:endnote w:id="2">${para(run('Henley is upstream of Marlow.'))}</w:endnote></w:endnotes>`,
          'word/comments.xml': `<w:comments><w:comment w:id="0" w:author="Bruno Ravenworth">${para(run('Check the founding year.'))}</w:comment></w:comments>`,
        }),
      ),
    );
    expect(doc.text).toBe(
      [
        'Ada Kestrel founded the boating club in 1921.[1] It moved to Henley.[e2]',
        'See page 7 and 3 May 1921.',
        '首都は東京です。',
        'Kept text.',
        'Text box.',
        'Year\tBoats\n1921\t12',
        'Header: Marlow Boating Club',
        'Footer: Page 1',
        'Footnote 1: The club records were lost in 1944.',
        'Endnote e2: Henley is upstream of Marlow.',
        'Comment (Bruno Ravenworth): Check the founding year.',
      ].join('\n\n'),
    );
  });

  it('a document whose only text is in its footnotes is read, not refused', async () => {
    const doc = await loadDocument(
      put(
        'notes-only.docx',
        docx(para('<w:r><w:footnoteReference w:id="1"/></w:r>'), {
          'word/footnotes.xml': `<w:footnotes><w:footnote w:id="1">${para(run('Only a note here.'))}</w:footnote></w:footnotes>`,
        }),
      ),
    );
    expect(doc.text).toBe('[1]\n\nFootnote 1: Only a note here.');
  });

  it('a text part above the limit is refused naming it; a large one below it is read whole', async () => {
    const big = docx(
      Array.from({ length: 20_000 }, (_, i) =>
        para(run(`Paragraph ${i} of a long report about the river and its locks.`)),
      ).join(''),
    );
    const refused = await loadDocument(put('big.docx', big), { maxDocxXmlBytes: 1024 ** 2 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'BAD_INPUT', details: { limit: 'docxXml' } });
    expect((refused as Error).message).toMatch(
      /word\/document\.xml is [\d.]+ MiB of XML, above the 1\.0 MiB limit for a DOCX part/,
    );
    const doc = await loadDocument(put('big-ok.docx', big));
    expect(doc.text.split('\n\n')).toHaveLength(20_000);
  });
});
