/** The fields of a PDF.js annotation this module reads. */
export interface AnnotationLike {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  /** The field's tooltip (/TU), which forms use as its human-readable label. */
  alternativeText?: string;
  contentsObj?: { str?: string };
}

/** Annotations whose /Contents is not text of their own: a popup repeats its parent's; a link's is its tooltip. */
const NOT_TEXT = new Set(['Popup', 'Link', 'Widget']);

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
