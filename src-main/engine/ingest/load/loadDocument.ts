import { basename, extname } from 'node:path';
import { throwIfAborted } from '../../base/abort.js';
import { missingCase } from '../../base/assert.js';
import { badInput } from '../badInput.js';
import { detectLanguage } from '../detectLanguage.js';
import type { LoadedDocument, LoadedText } from '../types.js';
import { decodeText } from './decodeText.js';
import {
  extensionOf,
  formatForPath,
  IMAGE_FORMATS,
  MIME_BY_FORMAT,
  sniffFormat,
  TEXT_FORMATS,
  UNSUPPORTED_FORMATS,
  ZIP_FORMATS,
  type DocumentFormat,
} from './formats.js';
import { loadCsv } from './loadCsv.js';
import { loadDocx } from './loadDocx.js';
import { loadEml } from './loadEml.js';
import { loadEpub } from './loadEpub.js';
import { loadImage } from './loadImage.js';
import { loadHtml, type HtmlToDocumentOptions } from './loadHtml.js';
import { loadOds } from './loadOds.js';
import { loadOdt } from './loadOdt.js';
import { loadPdf } from './loadPdf.js';
import { loadRtf } from './loadRtf.js';
import { loadOdp, loadPptx } from './loadSlides.js';
import { loadXlsx } from './loadXlsx.js';
import { markdownToText } from './markdownToText.js';
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

function chooseFormat(
  path: string,
  sniffed: ReturnType<typeof sniffFormat>,
  byExtension: DocumentFormat | undefined,
): DocumentFormat {
  const ext = extensionOf(path);
  switch (sniffed) {
    case 'pdf':
      return 'pdf';
    case 'zip':
      if (byExtension && ZIP_FORMATS.has(byExtension)) return byExtension;
      if (!UNSUPPORTED_FORMATS[ext]) return 'docx'; // loadDocx names what the archive lacks
      throw badInput(path, UNSUPPORTED_FORMATS[ext]!);
    case 'ole':
      throw badInput(
        path,
        'Office binary file (legacy .doc/.xls, or a password-protected Office file): not supported; save it as DOCX without a password',
      );
    case 'rtf':
      return 'rtf';
    case 'png':
    case 'jpeg':
    case 'tiff':
      return sniffed;
    case undefined:
      break;
    default:
      throw missingCase(sniffed);
  }
  if (byExtension === 'pdf') throw badInput(path, 'corrupt PDF (no %PDF header)');
  if (byExtension && IMAGE_FORMATS.has(byExtension))
    throw badInput(path, `not a ${byExtension.toUpperCase()} image (unknown header)`);
  if (byExtension && ZIP_FORMATS.has(byExtension))
    throw badInput(path, `not a ${byExtension.toUpperCase()} file (not a zip archive)`);
  if (!byExtension) throw badInput(path, UNSUPPORTED_FORMATS[ext] ?? `unsupported file type ${ext}`);
  return byExtension;
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

  let loaded: LoadedText;
  switch (format) {
    case 'pdf':
      loaded = await loadPdf(file.bytes, path, {
        maxTextChars,
        ...(options.maxPdfPages ? { maxPages: options.maxPdfPages } : {}),
        ...(options.ocr ? { ocr: options.ocr } : {}),
        ...(signal ? { signal } : {}),
      });
      break;
    case 'docx':
    case 'odt':
    case 'pptx':
    case 'odp':
    case 'epub':
      loaded = { docx: loadDocx, odt: loadOdt, pptx: loadPptx, odp: loadOdp, epub: loadEpub }[format](
        file.bytes,
        path,
        {
          ...(options.zip ? { zip: options.zip } : {}),
          ...(options.maxDocxXmlBytes ? { maxXmlBytes: options.maxDocxXmlBytes } : {}),
        },
      );
      break;
    case 'xlsx':
    case 'ods': {
      const load = format === 'xlsx' ? loadXlsx : loadOds;
      loaded = load(file.bytes, path, {
        ...(options.zip ? { zip: options.zip } : {}),
        ...(options.maxDocxXmlBytes ? { maxXmlBytes: options.maxDocxXmlBytes } : {}),
        ...(options.maxSheetCells ? { maxCells: options.maxSheetCells } : {}),
      });
      break;
    }
    case 'rtf':
      loaded = loadRtf(file.bytes, path);
      break;
    case 'eml':
      loaded = await loadEml(file.bytes, path);
      break;
    case 'png':
    case 'jpeg':
    case 'tiff':
      loaded = await loadImage(file.bytes, path, {
        mime: MIME_BY_FORMAT[format],
        ...(options.ocr ? { ocr: options.ocr } : {}),
      });
      break;
    case 'csv':
      loaded = loadCsv(file.bytes, path, options.maxSheetCells);
      break;
    case 'text':
    case 'markdown':
    case 'html': {
      const { text, encoding } = decodeText(file.bytes, path);
      if (format === 'text') loaded = { text: text.trim(), mime: 'text/plain' };
      else if (format === 'markdown') loaded = { ...markdownToText(text), mime: 'text/markdown' };
      else loaded = loadHtml(text, options.html);
      loaded.encoding = encoding;
      break;
    }
    default:
      throw missingCase(format);
  }
  if (!loaded.text.trim()) throw badInput(path, 'no text found in the file');
  if (loaded.text.length > maxTextChars) throw badInput(path, `extracted text exceeds ${maxTextChars} characters`);
  const detected = detectLanguage(loaded.text);
  return {
    ...loaded,
    path,
    title: loaded.title ?? basename(path, extname(path)),
    language: detected !== 'und' ? detected : (loaded.language ?? 'und'),
    size: file.size,
    sha256: file.sha256,
  };
}
