import { basename, extname } from 'node:path';
import { throwIfAborted } from '../../base/abort.js';
import { badInput } from '../badInput.js';
import type { LoadedDocument } from '../types.js';
import { finishText } from './finishText.js';
import { extensionOf, formatForPath, sniffFormat, TEXT_FORMATS, UNSUPPORTED_FORMATS } from './formats.js';
import { chooseFormat, loadContent } from './loadContent.js';
import type { HtmlToDocumentOptions } from './loadHtml.js';
import type { MailLimits } from './mailMessage.js';
import type { OcrLoadOptions } from './ocr/OcrSession.js';
import { readFileGuarded } from './readFileGuarded.js';
import type { ZipLimits } from './zipArchive.js';

export interface LoadDocumentOptions {
  /** PDF and DOCX files above this size are refused before reading. Default: 256 MiB. */
  maxFileBytes?: number;
  /**
   * Text, Markdown and HTML files above this size are refused before reading. Default: 64 MiB
   * (about 16 million tokens, far beyond what local-model indexing gets through in a day).
   */
  maxTextFileBytes?: number;
  /** Extracted text above this many characters is refused. Default: 50,000,000. */
  maxTextChars?: number;
  /** PDFs with more pages are refused. Default: 50,000. */
  maxPdfPages?: number;
  zip?: ZipLimits;
  /**
   * An XML part of a DOCX, XLSX, ODS… (document, header, sheet, shared strings…) above this size,
   * uncompressed, is refused. Default: 128 MiB.
   */
  maxDocxXmlBytes?: number;
  /** Spreadsheets (XLSX, ODS, CSV) with more cells holding values are refused. Default: 2,000,000. */
  maxSheetCells?: number;
  html?: HtmlToDocumentOptions;
  /** Per-message limits of EML and MBOX files (each message, and each attachment, is also held to the limits above). */
  mail?: MailLimits;
  /** OCR of scanned PDF pages, PDF pages with unreadable text, and image files (PNG, JPEG, TIFF). Default: on, every installed language. */
  ocr?: OcrLoadOptions;
  /** The sha256 the file had when scanned; a different one means it changed since: BAD_INPUT. */
  expectedSha256?: string;
  /** Bytes per read call. Default: 1 MiB. */
  readChunkBytes?: number;
  /** Called after each read call with (bytes read, file size). */
  onReadProgress?: (bytesRead: number, size: number) => void;
  signal?: AbortSignal;
}

/**
 * Loads one file into text: bounded, hashed read (refusing files that change or vanish
 * meanwhile), format from magic bytes then extension, extraction, then language detection
 * (falling back to the language the file declares). Every failure is
 * `PolyhopError('BAD_INPUT', '<file>: <reason>', {details: {path, reason}})`.
 */
export async function loadDocument(path: string, options: LoadDocumentOptions = {}): Promise<LoadedDocument> {
  const {
    maxFileBytes = 256 * 1024 ** 2,
    maxTextFileBytes = 64 * 1024 ** 2,
    maxTextChars = 50_000_000,
    signal,
  } = options;
  const ext = extensionOf(path);
  const byExtension = formatForPath(path);
  if (!byExtension && UNSUPPORTED_FORMATS[ext]) throw badInput(path, UNSUPPORTED_FORMATS[ext]!);
  const file = await readFileGuarded(path, {
    maxBytes: byExtension && TEXT_FORMATS.has(byExtension) ? maxTextFileBytes : maxFileBytes,
    ...(options.readChunkBytes ? { chunkBytes: options.readChunkBytes } : {}),
    ...(options.onReadProgress ? { onProgress: options.onReadProgress } : {}),
    ...(signal ? { signal } : {}),
  });
  if (options.expectedSha256 && options.expectedSha256 !== file.sha256)
    throw badInput(path, 'file changed since it was scanned');
  const format = chooseFormat(path, sniffFormat(file.bytes), byExtension);
  throwIfAborted(signal);

  const loaded = await loadContent(file.bytes, path, format, options);
  // A file of several documents (an MBOX) may have no text of its own.
  const finished =
    loaded.parts?.length && !loaded.text.trim()
      ? { ...loaded, title: loaded.title ?? basename(path, extname(path)), language: 'und' }
      : finishText(loaded, path, maxTextChars);
  return { ...finished, path, size: file.size, sha256: file.sha256 };
}
