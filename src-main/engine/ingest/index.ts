/** Ingest: files → text (loaders), folders → file lists, language, sentences/words, chunks. */
export type { LoadedDocument, LoadedText, PageStart, Span, TokenCounter } from './types.js';
export { badInput } from './badInput.js';
export { loadDocument, type LoadDocumentOptions } from './load/loadDocument.js';
export {
  FORMAT_BY_EXTENSION,
  UNSUPPORTED_FORMATS,
  MIME_BY_FORMAT,
  formatForPath,
  type DocumentFormat,
} from './load/formats.js';
export { decodeText, type DecodedText } from './load/decodeText.js';
export { loadHtml, type HtmlToDocumentOptions } from './load/loadHtml.js';
export { markdownToText } from './load/markdownToText.js';
export { loadPdf, type LoadPdfOptions } from './load/loadPdf.js';
export { loadDocx } from './load/loadDocx.js';
export type { ZipLimits } from './load/zipArchive.js';
export {
  scanFolder,
  hashFile,
  type FolderScan,
  type ScannedFile,
  type SkippedEntry,
  type SkipReason,
  type ScanFolderOptions,
} from './scanFolder.js';
export { detectLanguage, primaryLanguage, type DetectLanguageOptions } from './detectLanguage.js';
export { splitSentences, splitWords, trimSpan } from './segment.js';
export { estimateTokens, splitSpanByTokens } from './tokens.js';
export { semanticChunk, type SemanticChunkOptions } from './chunk/semanticChunk.js';
export { fixedSizeChunk, type FixedSizeChunkOptions } from './chunk/fixedSizeChunk.js';
export { pageAt } from './chunk/chunkRecord.js';
export { PAGE_SEPARATOR, pageTexts, type PageText } from './pageTexts.js';
