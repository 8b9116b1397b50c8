import { badInput } from '../badInput.js';
import { PAGE_SEPARATOR } from '../pageTexts.js';
import type { LoadedText, PageStart } from '../types.js';
import { OcrSession, type OcrLoadOptions } from './ocr/OcrSession.js';

export interface LoadImageOptions {
  mime: string;
  ocr?: OcrLoadOptions;
}

/** Most IFDs followed in a TIFF's chain when counting its pages (a loop in a hostile file ends there). */
const MAX_TIFF_IFDS = 10_000;

/** Offsets of a TIFF's pages (image file directories), in order; empty when the chain cannot be followed. */
export function tiffPageOffsets(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8) return [];
  const little = bytes[0] === 0x49; // "II" little-endian, "MM" big-endian
  let offset = view.getUint32(4, little);
  const seen = new Set<number>();
  const pages: number[] = [];
  while (offset > 0 && offset + 2 <= bytes.byteLength && !seen.has(offset) && pages.length < MAX_TIFF_IFDS) {
    seen.add(offset);
    const entries = view.getUint16(offset, little);
    const next = offset + 2 + entries * 12;
    if (next + 4 > bytes.byteLength) break;
    pages.push(offset);
    offset = view.getUint32(next, little);
  }
  return pages;
}

/**
 * Page `ifd` of a TIFF as a TIFF of its own: a copy whose header points at that page's directory
 * and whose directory ends the chain. A TIFF's data offsets are absolute, so nothing else moves;
 * the OCR's image reader (Leptonica) reads only a file's first page.
 */
export function tiffPage(bytes: Uint8Array, ifd: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  const view = new DataView(copy.buffer);
  const little = copy[0] === 0x49;
  view.setUint32(4, ifd, little);
  view.setUint32(ifd + 2 + view.getUint16(ifd, little) * 12, 0, little);
  return copy;
}

/**
 * A scanned page as an image file (PNG, JPEG, TIFF): its text read by OCR, as page 1; each page
 * of a multi-page TIFF (a fax, a scanner's batch) is read in turn as its page, and a page OCR reads
 * nothing in is left out with a note. An image OCR reads no text in is BAD_INPUT.
 */
export async function loadImage(bytes: Uint8Array, path: string, options: LoadImageOptions): Promise<LoadedText> {
  const ocr = new OcrSession(options.ocr);
  if (!ocr.enabled) throw badInput(path, 'an image is read by OCR, which is turned off');
  try {
    const offsets = options.mime === 'image/tiff' ? tiffPageOffsets(bytes) : [];
    const images = offsets.length > 1 ? offsets.map((ifd) => async () => tiffPage(bytes, ifd)) : [async () => bytes];
    let text = '';
    const pages: PageStart[] = [];
    const unread: number[] = [];
    for (const [index, image] of images.entries()) {
      const page = index + 1;
      const read = await ocr.read(page, image, 'image');
      if (read === undefined) {
        unread.push(page);
        continue;
      }
      if (text) text += PAGE_SEPARATOR;
      pages.push({ page, startOffset: text.length });
      text += read;
    }
    const notes = await ocr.notes();
    if (!text) throw badInput(path, `OCR read no text in the image${notes.length ? ` (${notes.join('; ')})` : ''}`);
    if (images.length > 1 && unread.length > 0)
      notes.push(`${unread.length === 1 ? 'page' : 'pages'} ${unread.join(', ')}: OCR read no text, left out`);
    const record = await ocr.record();
    return {
      text,
      mime: options.mime,
      pages,
      warnings: notes,
      ...(record ? { ocr: record } : {}),
    };
  } finally {
    await ocr.dispose();
  }
}
