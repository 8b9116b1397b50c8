import { missingCase } from '../../base/assert.js';
import { badInput } from '../badInput.js';
import type { LoadedPart, LoadedText } from '../types.js';
import { decodeText } from './decodeText.js';
import { finishText } from './finishText.js';
import {
  extensionOf,
  formatForPath,
  IMAGE_FORMATS,
  MIME_BY_FORMAT,
  sniffFormat,
  UNSUPPORTED_FORMATS,
  ZIP_FORMATS,
  type DocumentFormat,
  type ZipFormat,
} from './formats.js';
import { loadCsv } from './loadCsv.js';
import type { LoadDocumentOptions } from './loadDocument.js';
import { loadDocx } from './loadDocx.js';
import { loadEml } from './loadEml.js';
import { loadEpub } from './loadEpub.js';
import { loadImage } from './loadImage.js';
import { loadHtml } from './loadHtml.js';
import { loadMbox } from './loadMbox.js';
import { loadOds } from './loadOds.js';
import { loadOdt } from './loadOdt.js';
import { loadPdf } from './loadPdf.js';
import { loadRtf } from './loadRtf.js';
import { loadOdp, loadPptx } from './loadSlides.js';
import { loadXlsx } from './loadXlsx.js';
import { markdownToText } from './markdownToText.js';
import type { MailPartLoader } from './mailMessage.js';
import type { ZipSource } from './zipArchive.js';

/** What a format loader gives: the text, and the documents a file holds besides it (mail). */
export type LoadedContent = LoadedText & { parts?: LoadedPart[] };

/** The format of `bytes` named `path`: magic bytes first, then the extension's format. */
export function chooseFormat(
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
    case 'mbox':
      // Mailbox files often have no extension; a named text file stays text.
      if (ext === '' || byExtension === 'mbox') return 'mbox';
      break;
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
 * Extracts the text of a zip-based format from memory (a mail attachment) or from an open file
 * (a document on disk, read in place rather than whole).
 */
export function loadArchive(
  source: ZipSource,
  path: string,
  format: ZipFormat,
  options: LoadDocumentOptions,
): Promise<LoadedText> {
  const limits = {
    ...(options.zip ? { zip: options.zip } : {}),
    ...(options.maxDocxXmlBytes ? { maxXmlBytes: options.maxDocxXmlBytes } : {}),
  };
  switch (format) {
    case 'docx':
    case 'odt':
    case 'pptx':
    case 'odp':
    case 'epub':
      return { docx: loadDocx, odt: loadOdt, pptx: loadPptx, odp: loadOdp, epub: loadEpub }[format](
        source,
        path,
        limits,
      );
    case 'xlsx':
    case 'ods':
      return (format === 'xlsx' ? loadXlsx : loadOds)(source, path, {
        ...limits,
        ...(options.maxSheetCells ? { maxCells: options.maxSheetCells } : {}),
      });
    default:
      throw missingCase(format);
  }
}

/**
 * Attached messages whose attachments are read: a message's attachments (depth 1), an attached
 * message's (2), one attached to that (3); deeper ones are named in their message's text only.
 */
const MAX_MAIL_DEPTH = 3;

/**
 * Extracts the text of `bytes` (named `path` in errors) as `format`. Mail (EML, MBOX) also gives
 * its parts: messages and attachments of formats read here, each loaded by this function in turn,
 * {@link MAX_MAIL_DEPTH} attached messages deep.
 */
export async function loadContent(
  bytes: Buffer,
  path: string,
  format: DocumentFormat,
  options: LoadDocumentOptions,
  depth = 0,
): Promise<LoadedContent> {
  const { maxTextChars = 50_000_000, signal } = options;
  const loadPart: MailPartLoader = async (partBytes, fileName, partPath) => {
    const format = chooseFormat(fileName, sniffFormat(partBytes), formatForPath(fileName));
    const content = await loadContent(partBytes, partPath, format, options, depth + 1);
    const finished = finishText({ ...content, title: content.title ?? fileName }, partPath, maxTextChars);
    return options.keepPdfPartBytes && format === 'pdf' ? { ...finished, bytes: partBytes } : finished;
  };
  let loaded: LoadedContent;
  switch (format) {
    case 'pdf':
      loaded = await loadPdf(bytes, path, {
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
    case 'xlsx':
    case 'ods':
      loaded = await loadArchive(bytes, path, format, options);
      break;
    case 'rtf':
      loaded = loadRtf(bytes, path);
      break;
    case 'eml':
      loaded = await loadEml(bytes, path, depth < MAX_MAIL_DEPTH ? loadPart : undefined, options.mail);
      break;
    case 'mbox':
      loaded = await loadMbox(bytes, path, depth < MAX_MAIL_DEPTH ? loadPart : undefined, {
        maxTextChars,
        ...(options.mail ? { limits: options.mail } : {}),
      });
      break;
    case 'png':
    case 'jpeg':
    case 'tiff':
      loaded = await loadImage(bytes, path, {
        mime: MIME_BY_FORMAT[format],
        ...(options.ocr ? { ocr: options.ocr } : {}),
      });
      break;
    case 'csv':
      loaded = loadCsv(bytes, path, options.maxSheetCells);
      break;
    case 'text':
    case 'markdown':
    case 'html': {
      const { text, encoding } = decodeText(bytes, path);
      if (format === 'text') loaded = { text: text.trim(), mime: 'text/plain' };
      else if (format === 'markdown') loaded = { ...markdownToText(text), mime: 'text/markdown' };
      else loaded = loadHtml(text, options.html);
      loaded.encoding = encoding;
      break;
    }
    default:
      throw missingCase(format);
  }
  return loaded;
}
