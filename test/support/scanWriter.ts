import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { addGlyphIdFont, glyphIdString, PdfBuilder, pdfString } from './pdfBuilder.js';

/**
 * Scanned pages for OCR tests: text drawn into a grey image with @napi-rs/canvas (fonts from
 * packages, not the system: Liberation Sans from pdfjs-dist, Noto Sans SC from
 * @embedpdf/fonts-sc, so the pixels are the same on every machine), then saved as PNG, JPEG,
 * TIFF, or wrapped in a PDF page as an image with no text layer.
 */
const require = createRequire(import.meta.url);
GlobalFonts.registerFromPath(
  join(dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts', 'LiberationSans-Regular.ttf'),
  'ScanLatin',
);
// The package exports only its index (dist/), which lists the files in ../fonts.
GlobalFonts.registerFromPath(
  join(dirname(dirname(require.resolve('@embedpdf/fonts-sc'))), 'fonts', 'NotoSansHans-Regular.otf'),
  'ScanHans',
);

/** The resolution a scan's pixels stand for when it is placed on a PDF page. */
export const SCAN_DPI = 200;

export interface Scan {
  width: number;
  height: number;
  /** One byte per pixel, 0 black – 255 white, rows top to bottom. */
  gray: Buffer;
  png: Buffer;
  jpeg: Buffer;
}

/** An A4 page in PDF points (210 x 297 mm), and in pixels at SCAN_DPI (1654 x 2339). */
export const A4_POINTS = [595.28, 841.89] as const;
export const A4_PIXELS = {
  width: Math.round((A4_POINTS[0] * SCAN_DPI) / 72),
  height: Math.round((A4_POINTS[1] * SCAN_DPI) / 72),
};

/**
 * Lines of text as a scan: 32 px type (about 11.5 pt at 200 dpi), black on white; 1400 px wide and
 * as tall as the lines unless a size is given (A4_PIXELS: a whole page).
 */
export function scanOf(
  lines: readonly string[],
  { script = 'latin', size }: { script?: 'latin' | 'hans'; size?: { width: number; height: number } } = {},
): Scan {
  const lineHeight = 56;
  const { width, height } = size ?? { width: 1400, height: 40 + lineHeight * lines.length };
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#000000';
  context.font = `32px ${script === 'hans' ? 'ScanHans' : 'ScanLatin'}`;
  lines.forEach((line, i) => context.fillText(line, 40, 60 + i * lineHeight));
  const rgba = context.getImageData(0, 0, width, height).data;
  const gray = Buffer.alloc(width * height);
  for (let i = 0; i < gray.length; i++) gray[i] = Math.round((rgba[4 * i]! + rgba[4 * i + 1]! + rgba[4 * i + 2]!) / 3);
  return { width, height, gray, png: canvas.toBuffer('image/png'), jpeg: canvas.toBuffer('image/jpeg', 92) };
}

/**
 * An uncompressed 8-bit greyscale TIFF (little-endian, one strip per page, 200 dpi): `pages`
 * copies of the scan, or one page per scan of a list, in its order.
 */
export function tiffOf(scans: Scan | readonly Scan[], pages = 1): Buffer {
  const list = Array.isArray(scans) ? (scans as readonly Scan[]) : Array.from({ length: pages }, () => scans as Scan);
  const entries = (scan: Scan, dataOffset: number, resOffset: number): [number, number, number, number][] => [
    [256, 3, 1, scan.width], // ImageWidth
    [257, 3, 1, scan.height], // ImageLength
    [258, 3, 1, 8], // BitsPerSample
    [259, 3, 1, 1], // Compression: none
    [262, 3, 1, 1], // PhotometricInterpretation: black is zero
    [273, 4, 1, dataOffset], // StripOffsets
    [277, 3, 1, 1], // SamplesPerPixel
    [278, 3, 1, scan.height], // RowsPerStrip
    [279, 4, 1, scan.gray.length], // StripByteCounts
    [282, 5, 1, resOffset], // XResolution
    [283, 5, 1, resOffset], // YResolution
    [296, 3, 1, 2], // ResolutionUnit: inch
  ];
  const ifdSize = 2 + 12 * 12 + 4;
  const pageSize = (scan: Scan) => ifdSize + 8 + scan.gray.length;
  const out = Buffer.alloc(8 + list.reduce((sum, scan) => sum + pageSize(scan), 0));
  out.write('II*\0', 0, 'latin1');
  out.writeUInt32LE(8, 4);
  let ifd = 8;
  for (const [p, scan] of list.entries()) {
    const res = ifd + ifdSize;
    const data = res + 8;
    out.writeUInt16LE(12, ifd);
    entries(scan, data, res).forEach(([tag, type, count, value], i) => {
      const at = ifd + 2 + 12 * i;
      out.writeUInt16LE(tag, at);
      out.writeUInt16LE(type, at + 2);
      out.writeUInt32LE(count, at + 4);
      if (type === 3) out.writeUInt16LE(value, at + 8);
      else out.writeUInt32LE(value, at + 8);
    });
    out.writeUInt32LE(p + 1 < list.length ? ifd + pageSize(scan) : 0, ifd + 2 + 12 * 12);
    out.writeUInt32LE(SCAN_DPI, res);
    out.writeUInt32LE(1, res + 4);
    scan.gray.copy(out, data);
    ifd += pageSize(scan);
  }
  return out;
}

/**
 * A scan under an invisible text layer (render mode 3, as OCR'd scans carry theirs) that extracts
 * as garbage: in Helvetica whose /ToUnicode maps every code into the Private Use Area
 * (`private use`, the default), or as glyph ids in a CID font with neither font program nor
 * Unicode map (`glyph ids`, {@link addGlyphIdFont}), which a reader can only guess.
 */
export interface ScanUnderGarbage {
  scan: Scan;
  garbageTextLayer: string;
  font?: 'private use' | 'glyph ids';
}

/** ToUnicode CMap sending each byte code 0x20–0x7E to U+E020–U+E07E (private use). */
const PRIVATE_USE_CMAP = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Private-Use-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfrange <20> <7E> <E020> endbfrange
endcmap CMapName currentdict /CMapResource defineresource pop end end`;

/**
 * A PDF whose pages are scans (an image, no text layer), Helvetica text (a text layer) or scans
 * under a garbage text layer, on US Letter pages with the scan 0.5 in from the top left; with
 * `a4`, on A4 pages, a scan of A4_PIXELS filling its page.
 */
export function writeScanPdf(
  pages: readonly (Scan | { text: string } | ScanUnderGarbage)[],
  { a4 = false }: { a4?: boolean } = {},
): Buffer {
  const [pageWidth, pageHeight, margin] = a4 ? [...A4_POINTS, 0] : [612, 792, 36];
  const size = [pageWidth, pageHeight] as const;
  const pdf = new PdfBuilder();
  const font = pdf.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const garbageFonts: Partial<Record<NonNullable<ScanUnderGarbage['font']>, number>> = {};
  const specs = pages.map((page) => {
    if ('text' in page)
      return {
        content: pdf.stream(`BT /F1 12 Tf 72 ${pageHeight - 72} Td ${pdfString(page.text)} Tj ET`),
        resources: `/Font << /F1 ${font} 0 R >>`,
        size,
      };
    const scan = 'scan' in page ? page.scan : page;
    const image = pdf.stream(scan.gray, {
      dict: `/Type /XObject /Subtype /Image /Width ${scan.width} /Height ${scan.height} /ColorSpace /DeviceGray /BitsPerComponent 8`,
      deflate: true,
    });
    const w = (scan.width * 72) / SCAN_DPI;
    const h = (scan.height * 72) / SCAN_DPI;
    const draw = `q ${w.toFixed(2)} 0 0 ${h.toFixed(2)} ${margin} ${(pageHeight - margin - h).toFixed(2)} cm /Im1 Do Q`;
    if (!('scan' in page)) return { content: pdf.stream(draw), resources: `/XObject << /Im1 ${image} 0 R >>`, size };
    const kind = page.font ?? 'private use';
    const garbageFont = (garbageFonts[kind] ??=
      kind === 'glyph ids'
        ? addGlyphIdFont(pdf)
        : pdf.add(
            `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode ${pdf.stream(PRIVATE_USE_CMAP)} 0 R >>`,
          ));
    const shown = kind === 'glyph ids' ? glyphIdString(page.garbageTextLayer) : pdfString(page.garbageTextLayer);
    const layer = `BT 3 Tr /F2 12 Tf ${margin + 14} ${pageHeight - margin - 20} Td ${shown} Tj ET`;
    return {
      content: pdf.stream(`${draw}\n${layer}`),
      resources: `/XObject << /Im1 ${image} 0 R >> /Font << /F2 ${garbageFont} 0 R >>`,
      size,
    };
  });
  const { pagesId } = pdf.pages(specs);
  return pdf.finish(pdf.add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`));
}
