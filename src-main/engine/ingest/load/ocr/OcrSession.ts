import type { OcrRecord } from '../../types.js';
import { unreadableReason } from '../textReadability.js';
import { Ocr } from './Ocr.js';

/** OCR while a document loads (LoadDocumentOptions `ocr`); plain data, as it crosses to the loader thread. */
export interface OcrLoadOptions {
  /** Pages and images are not OCR'd: scans are refused as before. Default: false. */
  disabled?: boolean;
  /** Tesseract language codes (installed `@tesseract.js-data/<code>` packages). Default: every installed language. */
  languages?: string[];
  /**
   * OCR text with a lower mean confidence (0–100) is not used: the page stays as it was read
   * without OCR (no text, or its readable lines). Default: 40.
   */
  minConfidence?: number;
}

export type OcrReason = OcrRecord['pages'][number]['reason'];

/**
 * The OCR of one document: the recognition thread starts on the first page that needs it and
 * ends with {@link dispose}; what was read by OCR is kept for the document's record and note.
 */
export class OcrSession {
  readonly #options: OcrLoadOptions;
  #ocr: Promise<Ocr> | undefined;
  readonly #pages: OcrRecord['pages'] = [];
  readonly #failures: string[] = [];
  #tried = 0;

  constructor(options: OcrLoadOptions = {}) {
    this.#options = options;
  }

  get enabled(): boolean {
    return !this.#options.disabled;
  }

  /** Pages OCR was tried on (whether or not it read them). */
  get tried(): number {
    return this.#tried;
  }

  /**
   * The text OCR reads in a page's image, or undefined when it reads nothing usable (below the
   * confidence floor, unreadable, or OCR failed: the failure goes into the note).
   */
  async read(page: number, image: () => Promise<Uint8Array>, reason: OcrReason): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    this.#tried++;
    let result;
    try {
      this.#ocr ??= Ocr.create(this.#options.languages ? { languages: this.#options.languages } : {});
      const ocr = await this.#ocr;
      result = await ocr.recognize(await image());
    } catch (error) {
      this.#failures.push(`page ${page}: OCR failed (${(error as Error).message ?? String(error)})`);
      return undefined;
    }
    const { text, confidence } = result;
    if (!text || confidence < (this.#options.minConfidence ?? 40) || unreadableReason(text) !== undefined)
      return undefined;
    this.#pages.push({ page, confidence: Math.round(confidence), reason });
    return text;
  }

  /** Which pages were read by OCR, with what confidence; undefined when none. */
  async record(): Promise<OcrRecord | undefined> {
    if (this.#pages.length === 0 || !this.#ocr) return undefined;
    return { languages: [...(await this.#ocr).languages], pages: [...this.#pages] };
  }

  /** The document's notes about OCR: the pages read and their mean confidence, and failures. */
  async notes(): Promise<string[]> {
    const record = await this.record();
    return [...(record ? [ocrNote(record)] : []), ...this.#failures.slice(0, 3)];
  }

  async dispose(): Promise<void> {
    const ocr = this.#ocr;
    this.#ocr = undefined;
    if (ocr) await (await ocr.catch(() => undefined))?.dispose();
  }
}

/** "pages 1 and 3 read by OCR (mean confidence 91%; eng+ita)": at most 10 page numbers listed. */
export function ocrNote({ pages, languages }: OcrRecord): string {
  const numbers = pages.slice(0, 10).map((p) => p.page);
  const more = pages.length - numbers.length;
  const list =
    numbers.length === 1
      ? `page ${numbers[0]}`
      : `pages ${numbers.slice(0, -1).join(', ')}${more > 0 ? `, ${numbers.at(-1)} and ${more} more` : ` and ${numbers.at(-1)}`}`;
  const mean = Math.round(pages.reduce((sum, p) => sum + p.confidence, 0) / pages.length);
  return `${list} read by OCR (mean confidence ${mean}%; ${languages.join('+')})`;
}
