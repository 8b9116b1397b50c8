import { createIsomorphicCanvasFactory, getResolvedPDFJS } from 'unpdf';
import type { PDFPageProxy } from 'unpdf/pdfjs';

/** Resolution pages are rendered at for OCR. 200 dpi reads body text well at a quarter of 400 dpi's pixels. */
export const OCR_DPI = 200;
/** A page is rendered at a lower resolution when 200 dpi would take more pixels (a poster-sized MediaBox). */
const MAX_PIXELS = 16_000_000;

/**
 * A page PDF.js has not drawn by then is not OCR'd (it stays as read without OCR): PDF.js can wait
 * forever on a font it cannot load, and the document's time limit would then fail it whole.
 */
const RENDER_SECONDS = 30;

type CanvasFactoryClass = Awaited<ReturnType<typeof createIsomorphicCanvasFactory>>;

/**
 * PDF.js's canvas factory over @napi-rs/canvas (Skia, prebuilt inside its npm package), for
 * `getDocumentProxy({ CanvasFactory })`: PDF.js draws a page's intermediate canvases with it.
 */
export function pdfCanvasFactory(): Promise<CanvasFactoryClass> {
  return createIsomorphicCanvasFactory(() => import('@napi-rs/canvas'));
}

/** Whether a page paints an image (a scan, a photo of a page): a page without one has nothing to OCR. */
export async function pagePaintsImage(page: PDFPageProxy): Promise<boolean> {
  const { OPS } = await getResolvedPDFJS();
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintImageXObjectRepeat,
    OPS.paintInlineImageXObject,
    OPS.paintInlineImageXObjectGroup,
    OPS.paintImageMaskXObject,
    OPS.paintImageMaskXObjectGroup,
    OPS.paintImageMaskXObjectRepeat,
  ]);
  try {
    const { fnArray } = await page.getOperatorList();
    return fnArray.some((fn) => imageOps.has(fn));
  } catch {
    return false; // a page PDF.js cannot draw has nothing to render for OCR either
  }
}

/** A page as a PNG image at {@link OCR_DPI} (less for pages too large), on white. */
export async function renderPdfPage(page: PDFPageProxy, CanvasFactory: CanvasFactoryClass): Promise<Buffer> {
  const base = page.getViewport({ scale: 1 });
  const wanted = OCR_DPI / 72;
  const scale = Math.min(wanted, Math.sqrt(MAX_PIXELS / Math.max(1, base.width * base.height)));
  const viewport = page.getViewport({ scale });
  const factory = new CanvasFactory();
  // NodeCanvasFactory makes @napi-rs/canvas canvases, typed as DOM ones.
  const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height)) as {
    canvas: HTMLCanvasElement;
    context: CanvasRenderingContext2D;
  };
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  const task = page.render({ canvas, canvasContext: context, viewport });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      task.promise,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`page not drawn within ${RENDER_SECONDS} s`)), RENDER_SECONDS * 1000);
      }),
    ]);
  } catch (error) {
    task.cancel();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return (canvas as unknown as { toBuffer(mime: 'image/png'): Buffer }).toBuffer('image/png');
}
