import { basename, extname } from 'node:path';
import { throwIfAborted } from '../../base/abort.js';
import { badInput } from '../badInput.js';
import type { LoadedDocument } from '../types.js';
import { finishText } from './finishText.js';
import { extensionOf, formatForPath, isZipFormat, sniffFormat, TEXT_FORMATS, UNSUPPORTED_FORMATS } from './formats.js';
import { chooseFormat, loadArchive, loadContent, type LoadedContent } from './loadContent.js';
import type { HtmlToDocumentOptions } from './loadHtml.js';
import type { MailLimits } from './mailMessage.js';
import type { OcrLoadOptions } from './ocr/OcrSession.js';
import { GuardedFileHandle } from './readFileGuarded.js';
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
  /**
   * PDF attachments of mail keep their own bytes (LoadedPart `bytes`), so that their pages can be
   * drawn; off for indexing, which needs only their text. Default: false.
   */
  keepPdfPartBytes?: boolean;
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
  const file = await GuardedFileHandle.open(path, {
    maxBytes: byExtension && TEXT_FORMATS.has(byExtension) ? maxTextFileBytes : maxFileBytes,
    ...(signal ? { signal } : {}),
  });
  let loaded: LoadedContent;
  let sha256: string;
  try {
    // sniffFormat looks at the first KiB.
    const format = chooseFormat(path, sniffFormat(await file.head(1024)), byExtension);
    // A zip is hashed without being kept, then read in place, and proven afterwards to be the
    // version hashed; other formats are parsed from the bytes read.
    const zip = isZipFormat(format);
    const read = await file.readAll(!zip, {
      ...(options.readChunkBytes ? { chunkBytes: options.readChunkBytes } : {}),
      ...(options.onReadProgress ? { onProgress: options.onReadProgress } : {}),
      ...(signal ? { signal } : {}),
    });
    sha256 = read.sha256;
    if (!zip) await file.checkUnchanged();
    if (options.expectedSha256 && options.expectedSha256 !== sha256)
      throw badInput(path, 'file changed since it was scanned');
    throwIfAborted(signal);
    if (zip) {
      loaded = await loadArchive({ fd: file.fd, size: file.size }, path, format, options);
      await file.checkUnchanged();
    } else {
      await file.close();
      loaded = await loadContent(read.bytes!, path, format, options);
    }
  } finally {
    await file.close();
  }
  // A file of several documents (an MBOX) may have no text of its own.
  const finished =
    loaded.parts?.length && !loaded.text.trim()
      ? { ...loaded, title: loaded.title ?? basename(path, extname(path)), language: 'und' }
      : finishText(loaded, path, maxTextChars);
  return { ...finished, path, size: file.size, sha256 };
}
