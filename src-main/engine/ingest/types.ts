import type { OcrRecord } from '../kb/views.js';

export type { OcrRecord };

/** Where a PDF page starts in the extracted text (for citations). */
export interface PageStart {
  /** 1-based page number. */
  page: number;
  /** Character offset of the page's first character in {@link LoadedText.text}. */
  startOffset: number;
}

/** What a format loader extracts from a file's bytes. */
export interface LoadedText {
  /** Extracted plain text; chunk offsets point into it. Line endings are `\n`. */
  text: string;
  mime: string;
  /** Language declared by the file (e.g. `<html lang>`); detection in loadDocument may refine it. */
  language?: string;
  /** Page starts, ascending, for paged formats (PDF). */
  pages?: PageStart[];
  title?: string;
  /** Character encoding the bytes were decoded from (text formats), e.g. `utf-8`, `utf-16le`, `windows-1252`. */
  encoding?: string;
  /** What of the file could not be used although the rest was, e.g. "page 3: text unreadable (…)", and which pages were read by OCR. */
  warnings?: string[];
  /** The pages whose text was read by OCR (scans, pages whose text layer is unreadable); absent when none. */
  ocr?: OcrRecord;
}

/** A loaded file: its text plus what the KB records about the file. */
export interface LoadedDocument extends LoadedText {
  path: string;
  title: string;
  /** ISO 639-1 code (3 letters where none exists) or `und`. */
  language: string;
  size: number;
  /** sha256 of the exact bytes that were read. */
  sha256: string;
  /**
   * The documents this file holds besides its own text, in file order: an MBOX's messages (the
   * MBOX's own text is then empty), an e-mail's attachments of formats we read. Absent for most files.
   */
  parts?: LoadedPart[];
}

/** One document of several in a file: read, or refused on its own (the file's other parts still count). */
export type LoadedPart = {
  /**
   * Stable within the file, so re-reading the file names the same parts alike: an MBOX message's
   * Message-ID (`message/<n>` without one, or for a repeated one), `attachment/<n>` (1-based, in the
   * message's order), `<message>/attachment/<n>` for an MBOX message's attachment, then
   * `…/attachment/<m>` for an attached message's own attachments. The part's
   * document path is the file's path, `#`, then this.
   */
  partId: string;
  /** Bytes of the part (the message, or the decoded attachment). */
  size: number;
  /** A PDF attachment's own bytes, kept only when asked (LoadDocumentOptions `keepPdfPartBytes`). */
  bytes?: Uint8Array;
} & ({ loaded: LoadedText & { title: string; language: string }; error?: never } | { loaded?: never; error: string });

/** A half-open character range `[start, end)` into a text. */
export interface Span {
  start: number;
  end: number;
}

/** Counts tokens in a text; inject a real tokenizer's count, or use {@link estimateTokens}. */
export type TokenCounter = (text: string) => number;
