import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { throwIfAborted } from '../../base/abort.js';
import { badInput } from '../badInput.js';
import { PAGE_SEPARATOR } from '../pageTexts.js';
import type { LoadedText, PageStart } from '../types.js';
import { OcrSession, type OcrLoadOptions, type OcrReason } from './ocr/OcrSession.js';
import { pagePaintsImage, pdfCanvasFactory, renderPdfPage } from './ocr/renderPdfPage.js';
import { PdfAnnotationReader } from './pdfAnnotationText.js';
import { readableLines, unreadableReason } from './textReadability.js';

export interface LoadPdfOptions {
  /** Extraction stops with BAD_INPUT beyond this many characters. */
  maxTextChars: number;
  /** Documents with more pages are refused before extraction. Default: 50,000. */
  maxPages?: number;
  /** Annotation and form-field texts read per page; the rest are left out with a note. Default: 1,000. */
  maxAnnotationsPerPage?: number;
  /** OCR of pages without a text layer that paint an image, and of pages whose text is unreadable. Default: on. */
  ocr?: OcrLoadOptions;
  signal?: AbortSignal;
}

/**
 * PDF.js's predefined CMaps (CJK encodings such as UniJIS-UCS2-H or GBK-EUC-H) and the standard
 * fonts for non-embedded ones, from pdfjs-dist (the version unpdf bundles): without them text in
 * such fonts cannot be mapped to characters. Folder paths, with the trailing slash PDF.js wants.
 */
const PDFJS_DIST = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const PDFJS_DATA = {
  cMapUrl: `${join(PDFJS_DIST, 'cmaps')}/`,
  cMapPacked: true,
  standardFontDataUrl: `${join(PDFJS_DIST, 'standard_fonts')}/`,
};

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

/** "page 3: text unreadable (…)", or "pages 2, 5 and 7: …" (at most 10 numbers listed). */
function unreadableWarning(unreadable: readonly { page: number; reason: string }[]): string {
  const numbers = unreadable.slice(0, 10).map((u) => u.page);
  const more = unreadable.length - numbers.length;
  const list =
    numbers.length === 1 ? `page ${numbers[0]}` : `pages ${numbers.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  return `${list}: text unreadable (${unreadable[0]!.reason}; fonts without a Unicode map?), not indexed`;
}

/** "page 4: 9 of 30 lines unreadable (…), left out; the rest indexed". */
function partlyReadableWarning({ page, dropped, lines }: { page: number; dropped: number; lines: number }): string {
  return `page ${page}: ${dropped} of ${lines} lines unreadable (fonts without a Unicode map?), left out; the rest indexed`;
}

/**
 * The text of a PDF, page by page (unpdf's serverless PDF.js): the content stream's text layer,
 * then the page's filled form fields and annotation contents (read in one batch, at most
 * `maxAnnotationsPerPage` a page), with each page's start offset kept
 * for citations. Pages are joined by a blank line. A page without a text layer that paints an
 * image (a scan), or whose text is unreadable, is rendered (200 dpi) and read by OCR, keeping its
 * place; the document records those pages and the OCR's confidence. Encrypted (password) and
 * corrupt files are BAD_INPUT naming which; a PDF with no text even after OCR too.
 */
export async function loadPdf(bytes: Uint8Array, path: string, options: LoadPdfOptions): Promise<LoadedText> {
  const { maxTextChars, maxPages = 50_000, signal } = options;
  const ocr = new OcrSession(options.ocr);
  const CanvasFactory = ocr.enabled ? await pdfCanvasFactory() : undefined;
  let pdf;
  let probe: Promise<PDFDocumentProxy> | undefined;
  try {
    // PDF.js takes ownership of the buffer it is given, so it gets a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      isEvalSupported: false,
      stopAtErrors: false,
      ...PDFJS_DATA,
      ...(CanvasFactory ? { CanvasFactory } : {}),
    });
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    if (name === 'PasswordException')
      throw badInput(path, 'PDF is encrypted with a password', { cause: error, details: { encrypted: true } });
    if (name === 'InvalidPDFException') throw badInput(path, 'corrupt PDF (invalid structure)', { cause: error });
    throw badInput(path, `cannot read PDF (${(error as Error).message})`, { cause: error });
  }
  try {
    if (pdf.numPages > maxPages) throw badInput(path, `PDF has ${pdf.numPages} pages (limit ${maxPages})`);
    const parts: string[] = [];
    const pages: PageStart[] = [];
    const unreadable: { page: number; reason: string }[] = [];
    const partly: { page: number; dropped: number; lines: number }[] = [];
    const annotations = new PdfAnnotationReader(pdf, options.maxAnnotationsPerPage);
    // PDF.js (5.4) never finishes drawing a page with text once a page's operator list was read in
    // the same document: whether a page paints an image is asked of a second copy, opened on the
    // first page that may need OCR, so that the document rendered for OCR only ever renders.
    const paintsImage = async (n: number): Promise<boolean> => {
      probe ??= getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false, ...PDFJS_DATA });
      const copy = await probe.then((doc) => doc.getPage(n)).catch(() => undefined);
      if (!copy) return false; // what PDF.js cannot open twice it cannot draw for OCR either
      try {
        return await pagePaintsImage(copy);
      } finally {
        copy.cleanup();
      }
    };
    let length = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      throwIfAborted(signal);
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItemLike[]) {
        text += item.str ?? '';
        if (item.hasEOL) text += '\n';
      }
      // Unreadable text would index as noise: the page keeps its place (and its annotations) and
      // its readable lines when what they say together reads as text; the rest is left out.
      // Each line is judged too: one line in an unmapped font is a small share of its page.
      // Such a page, and a scan (no text, an image), is read by OCR first, when OCR reads it.
      const reason = unreadableReason(text);
      const salvage = readableLines(text);
      // Only a page that paints an image is OCR'd: a page with neither text nor an image has
      // nothing to read (text drawn as outlines aside), and rendering it would cost time for nothing.
      const ocrReason: OcrReason | undefined =
        (reason || salvage.dropped > 0 || !text.trim()) && CanvasFactory && (await paintsImage(n))
          ? text.trim()
            ? 'unreadable text'
            : 'no text layer'
          : undefined;
      const ocrText =
        ocrReason && CanvasFactory ? await ocr.read(n, () => renderPdfPage(page, CanvasFactory), ocrReason) : undefined;
      throwIfAborted(signal);
      if (ocrText !== undefined) text = ocrText;
      else if (reason || salvage.dropped > 0) {
        if (salvage.text && unreadableReason(salvage.text) === undefined) {
          partly.push({ page: n, dropped: salvage.dropped, lines: salvage.dropped + salvage.text.split('\n').length });
          text = salvage.text;
        } else {
          unreadable.push({ page: n, reason: reason ?? unreadableReason(salvage.text) ?? 'no readable line' });
          text = '';
        }
      }
      const extra = await annotations.textOf(n);
      if (extra.length > 0) text += `${text && !text.endsWith('\n') ? '\n' : ''}${extra.join('\n')}`;
      page.cleanup();
      if (n > 1) {
        parts.push(PAGE_SEPARATOR);
        length += PAGE_SEPARATOR.length;
      }
      pages.push({ page: n, startOffset: length });
      parts.push(text);
      length += text.length;
      if (length > maxTextChars)
        throw badInput(path, `extracted text exceeds ${maxTextChars} characters (at page ${n})`);
    }
    const text = parts.join('');
    const warning = unreadable.length > 0 ? unreadableWarning(unreadable) : undefined;
    const record = await ocr.record();
    const warnings = [
      ...(warning ? [warning] : []),
      ...partly.map(partlyReadableWarning),
      ...annotations.notes,
      ...(await ocr.notes()),
    ];
    if (!text.trim() && warning)
      throw badInput(path, `no readable text: ${warning}`, {
        details: { unreadablePages: unreadable.map((u) => u.page) },
      });
    if (!text.trim()) {
      const ocrNotes =
        ocr.tried > 0 ? `; OCR read no text in it${warnings.length ? ` (${warnings.join('; ')})` : ''}` : '';
      throw badInput(path, `PDF has no text layer in ${pdf.numPages} page(s) (scanned images?)${ocrNotes}`);
    }
    let title: string | undefined;
    try {
      const meta = await pdf.getMetadata();
      const t = (meta.info as Record<string, unknown> | undefined)?.['Title'];
      if (typeof t === 'string' && t.trim()) title = t.trim();
    } catch {
      // Metadata is optional; a broken info dictionary must not cost the text.
    }
    return {
      text,
      mime: 'application/pdf',
      pages,
      ...(title ? { title } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(record ? { ocr: record } : {}),
    };
  } catch (error) {
    if ((error as Error).name === 'PolyhopError' || (error as Error).name === 'CancelledError') throw error;
    throw badInput(path, `corrupt PDF (${(error as Error).message})`, { cause: error });
  } finally {
    await Promise.all([
      pdf.destroy(),
      ocr.dispose(),
      probe?.then(
        (copy) => copy.destroy(),
        () => undefined,
      ),
    ]);
  }
}
