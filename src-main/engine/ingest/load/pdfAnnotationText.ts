import { getResolvedPDFJS } from 'unpdf';

/** The fields of a PDF.js annotation this module reads. */
export interface AnnotationLike {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  /** The field's tooltip (/TU), which forms use as its human-readable label. */
  alternativeText?: string;
  contentsObj?: { str?: string };
  /** 0-based, set by PDF.js's getAnnotationsByType. */
  pageIndex?: number;
}

/** Annotations whose /Contents is not text of their own: a popup repeats its parent's; a link's is its tooltip. */
const NOT_TEXT = new Set(['Popup', 'Link', 'Widget']);

/** Default for {@link PdfAnnotationReader}'s `maxPerPage`. */
export const DEFAULT_MAX_ANNOTATIONS_PER_PAGE = 1000;

/**
 * Text a page carries outside its content stream, one line each: filled form-field values (text
 * fields and choices, labelled by their tooltip when there is one) and annotation contents
 * (free-text boxes, comments). Check boxes and buttons carry no text.
 */
export function annotationText(annotations: readonly AnnotationLike[]): string[] {
  const lines: string[] = [];
  for (const a of annotations) {
    if (a.subtype === 'Widget') {
      if (a.fieldType !== 'Tx' && a.fieldType !== 'Ch') continue;
      const values = (Array.isArray(a.fieldValue) ? a.fieldValue : [a.fieldValue]).filter(
        (v): v is string => typeof v === 'string' && v.trim() !== '',
      );
      if (values.length === 0) continue;
      const label = a.alternativeText?.trim();
      lines.push(`${label ? `${label}: ` : ''}${values.join(', ')}`);
    } else if (!NOT_TEXT.has(a.subtype ?? '')) {
      const contents = a.contentsObj?.str?.trim();
      if (contents) lines.push(contents);
    }
  }
  return lines;
}

const count = (n: number) => n.toLocaleString('en');

/** The part of a PDF.js document this module calls. */
interface AnnotatedDocument {
  numPages: number;
  getAnnotationsByType(types: Set<number>, pageIndexesToSkip: Set<number>): Promise<unknown[] | null>;
}

/**
 * The annotation and form-field text of a PDF's pages, read in batches of pages as the pages are
 * asked for in order, at most `maxPerPage` lines a page (the rest counted in a note). PDF.js's
 * per-page `getAnnotations` is not used: for the display intent it finds the text under every link
 * by testing each link against every other one and each glyph against them all (its
 * `Intersector`), quadratic in the links: 16,384 links and 16,384 comments on one page took 33 s
 * here where the text takes milliseconds (pdf.js's `bug1978317.pdf` has 32,768 on a page).
 * `getAnnotationsByType`, given the types that can carry text, drops links and popups before
 * building them and builds the rest once each (3 s). It reads every page not skipped at once, so
 * a batch is a slice of the pages (one call for all of 3,000 pages held 70 MiB more). A broken
 * annotation dictionary must not cost the document its text: a batch that fails gives no
 * annotation text.
 */
export class PdfAnnotationReader {
  readonly #pdf: AnnotatedDocument;
  readonly #maxPerPage: number;
  readonly #batch: number;
  #types: Set<number> | undefined;
  #byPage = new Map<number, string[]>();
  /** Pages up to this one (1-based) have been read. */
  #readTo = 0;
  /** "page 3: 15,384 of 16,384 annotation and form-field texts left out (at most 1,000 a page)". */
  readonly notes: string[] = [];

  constructor(pdf: AnnotatedDocument, maxPerPage = DEFAULT_MAX_ANNOTATIONS_PER_PAGE) {
    this.#pdf = pdf;
    this.#maxPerPage = maxPerPage;
    // At most ~100 batches: each call walks the skip set of all the other pages.
    this.#batch = Math.max(50, Math.ceil(pdf.numPages / 100));
  }

  /** The lines of page `page` (1-based); pages are asked for in order. */
  async textOf(page: number): Promise<string[]> {
    if (page > this.#readTo) await this.#read(page);
    const lines = this.#byPage.get(page) ?? [];
    this.#byPage.delete(page);
    return lines;
  }

  async #read(first: number): Promise<void> {
    const last = Math.min(this.#pdf.numPages, first + this.#batch - 1);
    this.#readTo = last;
    this.#byPage.clear();
    if (!this.#types) {
      const { AnnotationType } = await getResolvedPDFJS();
      this.#types = new Set(
        Object.values(AnnotationType as Record<string, number>).filter(
          (t) => t !== AnnotationType.LINK && t !== AnnotationType.POPUP,
        ),
      );
    }
    const skip = new Set<number>();
    for (let i = 0; i < this.#pdf.numPages; i++) if (i < first - 1 || i > last - 1) skip.add(i);
    let annotations: AnnotationLike[];
    try {
      annotations = ((await this.#pdf.getAnnotationsByType(this.#types, skip)) ?? []) as AnnotationLike[];
    } catch {
      return;
    }
    const grouped = new Map<number, AnnotationLike[]>();
    for (const a of annotations) {
      const page = (a.pageIndex ?? 0) + 1;
      let list = grouped.get(page);
      if (!list) grouped.set(page, (list = []));
      list.push(a);
    }
    for (const [page, list] of grouped) {
      const lines = annotationText(list);
      if (lines.length === 0) continue;
      if (lines.length > this.#maxPerPage)
        this.notes.push(
          `page ${page}: ${count(lines.length - this.#maxPerPage)} of ${count(lines.length)} ` +
            `annotation and form-field texts left out (at most ${count(this.#maxPerPage)} a page)`,
        );
      this.#byPage.set(page, lines.slice(0, this.#maxPerPage));
    }
  }
}
