import type { LoadedText } from '../types.js';
import { odfContentText } from './odfText.js';
import { relationships, withOfficeArchive, type OfficeArchive, type OfficeArchiveOptions } from './officeArchive.js';
import { localName, parseXml, tidyText } from './xmlStream.js';
import type { ZipSource } from './zipArchive.js';

interface Slide {
  text: string;
  notes: string;
}

/** Placeholders that repeat on every slide or show no text of the slide's own: slide number, date, header, footer, thumbnail. */
const FURNITURE = new Set(['sldNum', 'dt', 'hdr', 'ftr', 'sldImg']);

/** Slides in order as "Slide 1", its text, then "Notes: …" when it has speaker notes; a blank line between slides. */
function slidesText(slides: readonly Slide[]): string {
  return slides
    .map((s, i) => [`Slide ${i + 1}`, s.text, s.notes ? `Notes: ${s.notes}` : ''].filter((x) => x).join('\n'))
    .join('\n\n');
}

/**
 * Text of a PPTX: the slides in the presentation's order (`sldIdLst`, not the part names),
 * each with its speaker notes; slide numbers, dates, headers and footers left out.
 */
export function loadPptx(source: ZipSource, path: string, options: OfficeArchiveOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, 'PPTX', 'ppt/presentation.xml', options, presentationText);
}

async function presentationText(archive: OfficeArchive): Promise<LoadedText> {
  const read = async (name: string) => (await archive.part(name, drawingText))!;
  const order = (await archive.part('ppt/presentation.xml', slideOrder))!;
  const targets = new Map(
    relationships(await archive.read('ppt/_rels/presentation.xml.rels'), 'ppt/').map((r) => [r.id, r.target]),
  );
  const slides: Slide[] = [];
  for (const id of order) {
    const target = targets.get(id);
    if (!target || !archive.has(target)) continue;
    const slash = target.lastIndexOf('/');
    const rels = `${target.slice(0, slash)}/_rels/${target.slice(slash + 1)}.rels`;
    const notesPart = relationships(await archive.read(rels), target.slice(0, slash + 1)).find(
      (r) => r.type === 'notesSlide' && archive.has(r.target),
    );
    slides.push({ text: await read(target), notes: notesPart ? await read(notesPart.target) : '' });
  }
  return {
    text: slidesText(slides),
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  };
}

/** Relationship ids of `p:sldId` in `p:sldIdLst`, in order. */
function slideOrder(xml: Buffer): string[] {
  const ids: string[] = [];
  parseXml(xml, {
    onopentag(name, attrs) {
      if (localName(name) !== 'sldId') return;
      const id = Object.entries(attrs).find(([k]) => k.includes(':') && localName(k) === 'id')?.[1];
      if (id) ids.push(id);
    },
  });
  return ids;
}

/**
 * The text of a slide or notes slide (DrawingML): each shape's paragraphs (`a:p`) on lines of
 * their own, `a:br` as a line break, table cells separated by tabs; shapes that are furniture
 * placeholders (see {@link FURNITURE}) left out.
 */
function drawingText(xml: Buffer): string {
  const shapes: string[] = [];
  let shape: { parts: string[]; furniture: boolean } | null = null;
  let depth = 0;
  let inText = 0;
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if (tag === 'sp' || tag === 'graphicFrame') {
        if (depth++ === 0) shape = { parts: [], furniture: false };
      } else if (tag === 'ph' && shape && FURNITURE.has(attrs['type'] ?? '')) shape.furniture = true;
      else if (tag === 't') inText++;
      else if (tag === 'br' && shape) shape.parts.push('\n');
    },
    ontext(text) {
      if (shape && inText > 0) shape.parts.push(text);
    },
    onclosetag(name) {
      const tag = localName(name);
      if (tag === 't') inText--;
      else if (!shape) return;
      else if (tag === 'p') shape.parts.push('\n');
      else if (tag === 'tc') shape.parts.push('\t');
      else if ((tag === 'sp' || tag === 'graphicFrame') && --depth === 0) {
        const text = tidyText(shape.parts.join(''));
        if (text && !shape.furniture) shapes.push(text);
        shape = null;
      }
    },
  });
  return shapes.join('\n');
}

/** Text of an ODP: its pages (`draw:page`) in order, each with its speaker notes (`presentation:notes`). */
export function loadOdp(source: ZipSource, path: string, options: OfficeArchiveOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, 'ODP', 'content.xml', options, async (archive) => {
    const content = (await archive.part('content.xml', odfContentText))!;
    const slides = content.pages.map((p) => ({
      text: p.text.replace(/\n{2,}/g, '\n'),
      notes: p.notes.replace(/\n{2,}/g, '\n'),
    }));
    return { text: slidesText(slides), mime: 'application/vnd.oasis.opendocument.presentation' };
  });
}
