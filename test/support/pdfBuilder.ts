import { deflateSync } from 'node:zlib';

/**
 * Low-level PDF assembly for loader tests that need more than {@link writePdf}'s plain pages:
 * objects are added by hand (fonts, form fields, annotations, compressed streams) and the
 * builder writes a correct xref table. Binary data travels as latin1 strings.
 */
export class PdfBuilder {
  readonly #objects: string[] = [];

  /** Adds an object (its text between `obj` and `endobj`); returns its number. */
  add(body: string): number {
    return this.#objects.push(body);
  }

  /** Reserves an object number to fill later (for objects that refer to each other). */
  reserve(): number {
    return this.#objects.push('null');
  }

  set(id: number, body: string): void {
    this.#objects[id - 1] = body;
  }

  /** A stream object; `deflate` compresses it with /FlateDecode. */
  stream(data: string | Buffer, { dict = '', deflate = false }: { dict?: string; deflate?: boolean } = {}): number {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    const body = deflate ? deflateSync(bytes) : bytes;
    return this.add(
      `<< ${dict} /Length ${body.length}${deflate ? ' /Filter /FlateDecode' : ''} >>\nstream\n${body.toString('latin1')}\nendstream`,
    );
  }

  /**
   * Pages with the given content streams, resources, extra page-dictionary entries and size in
   * points (default US Letter, 612 x 792); returns the page ids and the Pages id.
   */
  pages(pages: readonly { content: number; resources?: string; extra?: string; size?: readonly [number, number] }[]): {
    pagesId: number;
    pageIds: number[];
  } {
    const pagesId = this.reserve();
    const pageIds = pages.map((p) =>
      this.add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${(p.size ?? [612, 792]).join(' ')}] /Contents ${p.content} 0 R /Resources << ${p.resources ?? ''} >> ${p.extra ?? ''} >>`,
      ),
    );
    this.set(
      pagesId,
      `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`,
    );
    return { pagesId, pageIds };
  }

  /** The file, with `root` as the catalog. */
  finish(root: number): Buffer {
    let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
    const offsets: number[] = [];
    this.#objects.forEach((o, i) => {
      offsets.push(out.length);
      out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    });
    const xref = out.length;
    out += `xref\n0 ${this.#objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    out += `trailer\n<< /Size ${this.#objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    return Buffer.from(out, 'latin1');
  }
}

/** A PDF string literal with `\`, `(` and `)` escaped. */
export function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * A one-page PDF whose content stream is a small deflated stream that inflates to `mib` MiB of
 * text-showing operators: a few hundred KiB on disk, an unbounded text layer for the parser.
 */
export function writeInflatingPdf(mib: number): Buffer {
  const pdf = new PdfBuilder();
  const font = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const line = 'BT /F1 12 Tf 72 720 Td (All work and no play makes a dull parser.) Tj ET\n';
  const content = pdf.stream(line.repeat(Math.ceil((mib * 1024 ** 2) / line.length)), { deflate: true });
  const { pagesId } = pdf.pages([{ content, resources: `/Font << /F1 ${font} 0 R >>` }]);
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}

/**
 * A one-page PDF in a non-embedded CID font (Type0) whose encoding is one of the predefined
 * CMaps (`/UniJIS-UCS2-H`, `/GBK-EUC-H`…): the reader needs the CMap files to map the codes to
 * characters. `hexCodes` are the content stream's character codes, in that CMap's encoding.
 */
export function writeCmapPdf({
  cmap,
  ordering,
  baseFont,
  hexCodes,
}: {
  cmap: string;
  ordering: 'Japan1' | 'GB1' | 'CNS1' | 'Korea1';
  baseFont: string;
  hexCodes: string;
}): Buffer {
  const pdf = new PdfBuilder();
  const descriptor = pdf.add(
    `<< /Type /FontDescriptor /FontName /${baseFont} /Flags 6 /FontBBox [0 -141 1000 859] /ItalicAngle 0 /Ascent 859 /Descent -141 /CapHeight 700 /StemV 80 >>`,
  );
  const cidFont = pdf.add(
    `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${baseFont} /CIDSystemInfo << /Registry (Adobe) /Ordering (${ordering}) /Supplement 2 >> /FontDescriptor ${descriptor} 0 R /DW 1000 >>`,
  );
  const font = pdf.add(
    `<< /Type /Font /Subtype /Type0 /BaseFont /${baseFont}-${cmap} /Encoding /${cmap} /DescendantFonts [${cidFont} 0 R] >>`,
  );
  const content = pdf.stream(`BT /F1 12 Tf 72 720 Td <${hexCodes}> Tj ET`);
  const { pagesId } = pdf.pages([{ content, resources: `/Font << /F1 ${font} 0 R >>` }]);
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}

export interface AnnotatedPageSpec {
  /** Text of the content stream (Helvetica); empty for none. */
  text?: string;
  /** Filled AcroForm text fields on the page: name, tooltip (/TU) and value (/V). */
  fields?: { name: string; tooltip?: string; value: string }[];
  /** Annotations with /Contents: free-text boxes and sticky-note comments (each with its popup). */
  annotations?: { subtype: 'FreeText' | 'Text'; contents: string }[];
}

/** Pages whose text may sit outside the content stream: in form-field values and annotation contents. */
export function writeAnnotatedPdf(pages: readonly AnnotatedPageSpec[]): Buffer {
  const pdf = new PdfBuilder();
  const font = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const fieldIds: number[] = [];
  const specs = pages.map((page) => {
    const content = pdf.stream(page.text ? `BT /F1 12 Tf 72 720 Td ${pdfString(page.text)} Tj ET` : '');
    const annots: number[] = [];
    let y = 600;
    for (const field of page.fields ?? []) {
      const id = pdf.add(
        `<< /Type /Annot /Subtype /Widget /FT /Tx /T ${pdfString(field.name)}${field.tooltip ? ` /TU ${pdfString(field.tooltip)}` : ''} /V ${pdfString(field.value)} /DA (/Helv 10 Tf 0 g) /Rect [72 ${y} 400 ${y + 20}] /F 4 >>`,
      );
      annots.push(id);
      fieldIds.push(id);
      y -= 40;
    }
    for (const annotation of page.annotations ?? []) {
      const id = pdf.reserve();
      const popup =
        annotation.subtype === 'Text'
          ? pdf.add(`<< /Type /Annot /Subtype /Popup /Parent ${id} 0 R /Rect [300 ${y} 500 ${y + 100}] >>`)
          : 0;
      pdf.set(
        id,
        `<< /Type /Annot /Subtype /${annotation.subtype} /Contents ${pdfString(annotation.contents)} /Rect [72 ${y} 400 ${y + 30}] /F 4${annotation.subtype === 'FreeText' ? ' /DA (/Helv 10 Tf 0 g)' : ''}${popup ? ` /Popup ${popup} 0 R` : ''} >>`,
      );
      annots.push(id);
      if (popup) annots.push(popup);
      y -= 40;
    }
    return {
      content,
      resources: `/Font << /F1 ${font} 0 R >>`,
      extra: annots.length ? `/Annots [${annots.map((a) => `${a} 0 R`).join(' ')}]` : '',
    };
  });
  const { pagesId } = pdf.pages(specs);
  const form = fieldIds.length
    ? ` /AcroForm << /Fields [${fieldIds.map((f) => `${f} 0 R`).join(' ')}] /DA (/Helv 10 Tf 0 g) /DR << /Font << /Helv ${font} 0 R >> >> >>`
    : '';
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R${form} >>`));
}

/** An Identity-H CID font with neither font program nor /ToUnicode (see {@link writeGlyphIdPdf}); returns its object number. */
export function addGlyphIdFont(pdf: PdfBuilder): number {
  const descriptor = pdf.add(
    '<< /Type /FontDescriptor /FontName /ABCDEF+Calibri /Flags 32 /FontBBox [0 -250 1000 750] /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 >>',
  );
  const cidFont = pdf.add(
    `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Calibri /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${descriptor} 0 R /DW 500 >>`,
  );
  return pdf.add(
    `<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Calibri /Encoding /Identity-H /DescendantFonts [${cidFont} 0 R] >>`,
  );
}

/** `text` as a hex string of glyph ids in the standard TrueType order (code = character − 29, space = 3), for {@link addGlyphIdFont}. */
export function glyphIdString(text: string): string {
  return `<${[...text].map((c) => (c === ' ' ? 3 : c.charCodeAt(0) - 29).toString(16).padStart(4, '0')).join('')}>`;
}

/**
 * Pages in Helvetica (`text`) or in an Identity-H CID font with no Unicode map (`glyphText`: the
 * text shown as glyph ids in the standard TrueType order, code = character − 29, space = 3), as
 * subset fonts without /ToUnicode leave many real PDFs: a reader can only guess the characters.
 */
type GlyphIdLine = { text: string } | { glyphText: string };

/** `lines`: one page of such lines, top to bottom (readable and unmapped lines mixed on a page). */
export function writeGlyphIdPdf(pages: readonly (GlyphIdLine | { lines: readonly GlyphIdLine[] })[]): Buffer {
  const pdf = new PdfBuilder();
  const helvetica = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const glyphFont = addGlyphIdFont(pdf);
  const show = (line: GlyphIdLine) =>
    'text' in line ? `/F1 12 Tf ${pdfString(line.text)} Tj` : `/F2 12 Tf ${glyphIdString(line.glyphText)} Tj`;
  const specs = pages.map((page) => ({
    content: pdf.stream(`BT 72 720 Td ${('lines' in page ? page.lines : [page]).map(show).join(' 0 -16 Td ')} ET`),
    resources: `/Font << /F1 ${helvetica} 0 R /F2 ${glyphFont} 0 R >>`,
  }));
  const { pagesId } = pdf.pages(specs);
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}

/**
 * One page of Helvetica `text` crowded with `links` link annotations (URIs, no text of their own)
 * and `comments` sticky notes ("note 1", "note 2"…), tiny and overlapping as a generator that
 * annotates every word leaves them (pdf.js's `bug1978317.pdf` has 32,768 on one page); then a
 * second page with one comment.
 */
export function writeCrowdedAnnotationsPdf({
  text,
  links,
  comments,
}: {
  text: string;
  links: number;
  comments: number;
}): Buffer {
  const pdf = new PdfBuilder();
  const font = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const rect = (i: number) =>
    `/Rect [${72 + (i % 400)} ${700 - (Math.floor(i / 400) % 600)} ${80 + (i % 400)} ${712 - (Math.floor(i / 400) % 600)}]`;
  const annots: number[] = [];
  for (let i = 0; i < links + comments; i++)
    annots.push(
      pdf.add(
        i < links
          ? `<< /Type /Annot /Subtype /Link ${rect(i)} /Border [0 0 0] /A << /S /URI /URI (https://example.org/${i}) >> >>`
          : `<< /Type /Annot /Subtype /Text ${rect(i)} /Contents (note ${i - links + 1}) /F 4 >>`,
      ),
    );
  const comment = pdf.add(
    `<< /Type /Annot /Subtype /Text /Rect [72 600 90 620] /Contents (Second page comment) /F 4 >>`,
  );
  const { pagesId } = pdf.pages([
    {
      content: pdf.stream(`BT /F1 12 Tf 72 720 Td ${pdfString(text)} Tj ET`),
      resources: `/Font << /F1 ${font} 0 R >>`,
      extra: `/Annots [${annots.map((a) => `${a} 0 R`).join(' ')}]`,
    },
    {
      content: pdf.stream(`BT /F1 12 Tf 72 720 Td ${pdfString('Second page')} Tj ET`),
      resources: `/Font << /F1 ${font} 0 R >>`,
      extra: `/Annots [${comment} 0 R]`,
    },
  ]);
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}

/**
 * A PDF of `pages` pages without text, each painting one shared `side`×`side` RGB image whose
 * pixels (all black) are deflated twice (`/Filter [/FlateDecode /FlateDecode]`): about a kilobyte
 * on disk, 3·side² bytes once decoded, more while PDF.js converts and hands them on.
 */
export function writeImageBombPdf(side: number, pages = 1): Buffer {
  const pdf = new PdfBuilder();
  const pixels = deflateSync(deflateSync(Buffer.alloc(side * side * 3)));
  const image = pdf.add(
    `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length ${pixels.length} /Filter [/FlateDecode /FlateDecode] >>\nstream\n${pixels.toString('latin1')}\nendstream`,
  );
  const content = pdf.stream('q 612 0 0 792 0 0 cm /Im0 Do Q');
  const { pagesId } = pdf.pages(
    Array.from({ length: pages }, () => ({ content, resources: `/XObject << /Im0 ${image} 0 R >>` })),
  );
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}

/**
 * Pages from raw content streams, with `/F1` Helvetica (WinAnsi) and `/F2` an Identity-H CID font
 * without a Unicode map (as in {@link writeGlyphIdPdf}), for text a producer can leave behind:
 * `<0000>` in F2 reads as one NUL, GBK bytes in F1 as Latin-1 letters.
 */
export function writeContentPdf(contents: readonly string[]): Buffer {
  const pdf = new PdfBuilder();
  const helvetica = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const descriptor = pdf.add(
    '<< /Type /FontDescriptor /FontName /ABCDEF+Calibri /Flags 32 /FontBBox [0 -250 1000 750] /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 >>',
  );
  const cidFont = pdf.add(
    `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Calibri /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${descriptor} 0 R /DW 500 >>`,
  );
  const glyphFont = pdf.add(
    `<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Calibri /Encoding /Identity-H /DescendantFonts [${cidFont} 0 R] >>`,
  );
  const resources = `/Font << /F1 ${helvetica} 0 R /F2 ${glyphFont} 0 R >>`;
  const { pagesId } = pdf.pages(contents.map((c) => ({ content: pdf.stream(c), resources })));
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}
