import { extname } from 'node:path';

export type DocumentFormat =
  | 'text'
  | 'markdown'
  | 'html'
  | 'pdf'
  | 'docx'
  | 'csv'
  | 'xlsx'
  | 'ods'
  | 'odt'
  | 'pptx'
  | 'odp'
  | 'epub'
  | 'rtf'
  | 'eml'
  | 'mbox'
  | 'png'
  | 'jpeg'
  | 'tiff';

/** Image formats: scanned pages, read by OCR. */
export const IMAGE_FORMATS: ReadonlySet<DocumentFormat> = new Set(['png', 'jpeg', 'tiff']);

/** Formats stored as zip archives (Office Open XML, OpenDocument, EPUB). */
export type ZipFormat = Extract<DocumentFormat, 'docx' | 'xlsx' | 'ods' | 'odt' | 'pptx' | 'odp' | 'epub'>;

export const ZIP_FORMATS: ReadonlySet<DocumentFormat> = new Set<ZipFormat>([
  'docx',
  'xlsx',
  'ods',
  'odt',
  'pptx',
  'odp',
  'epub',
]);

export function isZipFormat(format: DocumentFormat): format is ZipFormat {
  return ZIP_FORMATS.has(format);
}

/** Extensions loaded as documents (lower case, with dot). Files without an extension are tried as text. */
export const FORMAT_BY_EXTENSION: Readonly<Record<string, DocumentFormat>> = {
  '.txt': 'text',
  '.text': 'text',
  '.log': 'text',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.ods': 'ods',
  '.odt': 'odt',
  '.pptx': 'pptx',
  '.odp': 'odp',
  '.epub': 'epub',
  '.rtf': 'rtf',
  '.eml': 'eml',
  '.mbox': 'mbox',
  '.mbx': 'mbox',
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.tif': 'tiff',
  '.tiff': 'tiff',
};

/** Document formats we recognise but cannot read yet, with what to do instead. */
export const UNSUPPORTED_FORMATS: Readonly<Record<string, string>> = {
  '.doc': 'legacy Word .doc is not supported; save it as DOCX',
  '.pages': 'Apple Pages is not supported; export it as DOCX or PDF',
};

/** Formats read as text, under the text-file size limit. */
export const TEXT_FORMATS: ReadonlySet<DocumentFormat> = new Set(['text', 'markdown', 'html', 'csv']);

export function extensionOf(path: string): string {
  return extname(path).toLowerCase();
}

/** The format a path's extension names; `text` for no extension; undefined when not a document we read. */
export function formatForPath(path: string): DocumentFormat | undefined {
  const ext = extensionOf(path);
  return ext === '' ? 'text' : FORMAT_BY_EXTENSION[ext];
}

export type Sniffed = 'pdf' | 'zip' | 'ole' | 'rtf' | 'png' | 'jpeg' | 'tiff' | 'mbox' | undefined;

/** A From_ line's sender and asctime date ("From ada@x Thu May  1 10:00:00 2024"), as mbox writers put it. */
export const MBOX_FROM_LINE =
  /^From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) +[A-Z][a-z]{2} +\d{1,2} +\d\d:\d\d(?::\d\d)? /;

/** Format from the first bytes (magic numbers), when they name one; the caller falls back to the extension. */
export function sniffFormat(bytes: Uint8Array): Sniffed {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
  if (head.startsWith('PK\x03\x04')) return 'zip';
  if (head.startsWith('\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1')) return 'ole';
  if (head.startsWith('{\\rtf')) return 'rtf';
  if (head.startsWith('\x89PNG\r\n\x1a\n')) return 'png';
  if (head.startsWith('\xff\xd8\xff')) return 'jpeg';
  if (head.startsWith('II*\0') || head.startsWith('MM\0*')) return 'tiff';
  if (head.includes('%PDF-')) return 'pdf';
  // A mail client's mailbox file (Thunderbird's "Inbox" has no extension): a From_ line, then a header.
  if (MBOX_FROM_LINE.test(head) && /^[^\n]*\r?\n[\w-]+:/.test(head)) return 'mbox';
  return undefined;
}

export const MIME_BY_FORMAT: Readonly<Record<DocumentFormat, string>> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odt: 'application/vnd.oasis.opendocument.text',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  rtf: 'application/rtf',
  eml: 'message/rfc822',
  mbox: 'application/mbox',
  png: 'image/png',
  jpeg: 'image/jpeg',
  tiff: 'image/tiff',
};
