import { badInput } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { OcrSession, type OcrLoadOptions } from './ocr/OcrSession.js';

export interface LoadImageOptions {
  mime: string;
  ocr?: OcrLoadOptions;
}

/** Most IFDs followed in a TIFF's chain when counting its pages (a loop in a hostile file ends there). */
const MAX_TIFF_IFDS = 10_000;

/** Pages (image file directories) of a TIFF; 1 when the chain cannot be followed. */
export function tiffPageCount(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8) return 1;
  const little = bytes[0] === 0x49; // "II" little-endian, "MM" big-endian
  let offset = view.getUint32(4, little);
  const seen = new Set<number>();
  let pages = 0;
  while (offset > 0 && offset + 2 <= bytes.byteLength && !seen.has(offset) && pages < MAX_TIFF_IFDS) {
    seen.add(offset);
    pages++;
    const entries = view.getUint16(offset, little);
    const next = offset + 2 + entries * 12;
    if (next + 4 > bytes.byteLength) break;
    offset = view.getUint32(next, little);
  }
  return Math.max(1, pages);
}

/**
 * A scanned page as an image file (PNG, JPEG, TIFF): its text read by OCR, as page 1. A TIFF's
 * first page is read; more pages are named in a note. An image OCR reads no text in is BAD_INPUT.
 */
export async function loadImage(bytes: Uint8Array, path: string, options: LoadImageOptions): Promise<LoadedText> {
  const ocr = new OcrSession(options.ocr);
  if (!ocr.enabled) throw badInput(path, 'an image is read by OCR, which is turned off');
  try {
    const text = await ocr.read(1, async () => bytes, 'image');
    const notes = await ocr.notes();
    if (text === undefined)
      throw badInput(path, `OCR read no text in the image${notes.length ? ` (${notes.join('; ')})` : ''}`);
    const pages = options.mime === 'image/tiff' ? tiffPageCount(bytes) : 1;
    if (pages > 1) notes.push(`TIFF has ${pages} pages; only the first was read`);
    const record = await ocr.record();
    return {
      text,
      mime: options.mime,
      pages: [{ page: 1, startOffset: 0 }],
      warnings: notes,
      ...(record ? { ocr: record } : {}),
    };
  } finally {
    await ocr.dispose();
  }
}
