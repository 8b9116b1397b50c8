import type * as Pdfjs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { api, type DocumentPageText } from '../../api/index.js';
import { coveredParts, pageText, type PdfTextItem } from './pdfTextMap.js';

/** Why a page could not be drawn with its highlight; the dialog then shows the page's text instead. */
export class PageNotDrawn extends Error {
  override readonly name = 'PageNotDrawn';
}

/** What was drawn: the page, the highlight's elements and whether the passage goes on past this page. */
export interface DrawnPage {
  page: number;
  marks: HTMLElement[];
  continues: boolean;
}

// PDF.js (the pdfjs-dist that unpdf uses in the engine, so both read the same text items) is
// loaded on the first PDF citation; its worker is a file of the app, so the CSP's
// script-src 'self' allows it (without a worker PDF.js imports the same file on the page).
let pdfjs: Promise<typeof Pdfjs> | null = null;
const loadPdfjs = () =>
  (pdfjs ??= import('pdfjs-dist').then((m) => {
    m.GlobalWorkerOptions.workerSrc = workerUrl;
    return m;
  }));

// The predefined Adobe CMaps, which a PDF in a font it does not embed (CJK, mostly) needs to map
// its character codes to text: the engine's loader reads them from pdfjs-dist, so the page's text
// layer must too, or it is not the indexed text. Each is bundled as a lazily loaded module holding
// its bytes as a data URL, so reading one is a script import from the app (the CSP's script-src
// 'self', file:// in the window), not a fetch.
const CMAPS = import.meta.glob<string>('../../../node_modules/pdfjs-dist/cmaps/*.bcmap', {
  query: '?inline',
  import: 'default',
});

/** PDF.js's CMap reader (its `CMapReaderFactory` option), from the bundled CMaps. */
class BundledCMapReader {
  async fetch({ name }: { name: string }): Promise<{ cMapData: Uint8Array; isCompressed: boolean }> {
    const load = CMAPS[`../../../node_modules/pdfjs-dist/cmaps/${name}.bcmap`];
    if (!load) throw new Error(`No CMap ${name}`);
    const url = await load();
    return {
      cMapData: Uint8Array.from(atob(url.slice(url.indexOf(',') + 1)), (c) => c.charCodeAt(0)),
      isCompressed: true,
    };
  }
}

// The last file opened stays open, so that the next citation into it does not fetch it again.
let open: { key: string; document: Promise<PDFDocumentProxy> } | null = null;

function openDocument(kb: string, source: DocumentPageText): Promise<PDFDocumentProxy> {
  const { id, size, addedAt } = source.document;
  const key = JSON.stringify([kb, id, size, addedAt]);
  if (open?.key === key) return open.document;
  void open?.document.then((d) => d.destroy()).catch(() => {});
  const document = (async () => {
    const [{ getDocument }, file] = await Promise.all([loadPdfjs(), api().call('docs:file', { kb, id })]);
    const data = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
    // No eval (the CSP forbids it), nothing fetched: fonts the file does not embed are drawn with system fonts.
    return getDocument({
      data,
      isEvalSupported: false,
      useSystemFonts: true,
      CMapReaderFactory: BundledCMapReader,
      verbosity: 0,
    }).promise;
  })();
  open = { key, document };
  document.catch(() => {
    if (open?.key === key) open = null;
  });
  return document;
}

/**
 * Draws the cited page `source` into `canvas` (fitted to `width` CSS pixels), builds PDF.js's
 * text layer over it in `layer`, and marks the passage on it at the offsets the engine gave: the
 * page's text items, joined as the engine's loader joined them, must be the page's indexed text,
 * else (an OCR'd page, lines left out as unreadable) PageNotDrawn.
 */
export async function drawCitedPage(options: {
  kb: string;
  source: DocumentPageText;
  canvas: HTMLCanvasElement;
  layer: HTMLDivElement;
  width: number;
  isCancelled: () => boolean;
}): Promise<DrawnPage | null> {
  const { kb, source, canvas, layer, width, isCancelled } = options;
  if (source.page === null) throw new PageNotDrawn('the document has no pages');
  const [{ TextLayer }, pdf] = await Promise.all([loadPdfjs(), openDocument(kb, source)]);
  const page = await pdf.getPage(source.page);
  if (isCancelled()) return null;
  const content = await page.getTextContent();
  const { text, spans } = pageText(content.items as PdfTextItem[]);
  // Form fields and annotations follow the text items in the engine's page text.
  if (!text || !source.text.startsWith(text))
    throw new PageNotDrawn("the page's text layer is not the text that was indexed");

  const viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  await page.render({
    canvas,
    viewport,
    ...(ratio !== 1 ? { transform: [ratio, 0, 0, ratio, 0, 0] } : {}),
  }).promise;
  if (isCancelled()) return null;

  layer.replaceChildren();
  layer.style.setProperty('--total-scale-factor', String(viewport.scale));
  const textLayer = new TextLayer({ textContentSource: content, container: layer, viewport });
  await textLayer.render();
  const marks: HTMLElement[] = [];
  for (const part of coveredParts(spans, source.passage.start, source.passage.end)) {
    const div = textLayer.textDivs[part.div];
    const str = textLayer.textContentItemsStr[part.div];
    if (!div || str === undefined) continue;
    const mark = document.createElement('mark');
    mark.className = 'pdf-highlight';
    mark.dataset.testid = 'pdf-highlight';
    mark.textContent = str.slice(part.start, part.end);
    div.replaceChildren(str.slice(0, part.start), mark, str.slice(part.end));
    marks.push(mark);
  }
  if (marks.length === 0) throw new PageNotDrawn('the passage is not on the text layer of its page');
  return { page: source.page, marks, continues: source.continues };
}
