import { localName as local, parseXml, tidyText as tidy } from './xmlStream.js';

/** A note or comment of a DOCX, from footnotes.xml, endnotes.xml or comments.xml. */
export interface WordNote {
  kind: 'footnote' | 'endnote' | 'comment';
  id: string;
  author?: string;
  text: string;
}

export interface WordPartText {
  /** The part's text outside notes (all of it for the body, headers and footers). */
  text: string;
  notes: WordNote[];
}

/** Elements whose content is not the document's text, by local name. */
const SKIP = new Set([
  'rt', // ruby text (the reading aid above the base text)
  'instrText', // field instructions; the field's result is ordinary runs
  'delText', // tracked deletion
  'moveFrom', // tracked move: the text also sits at its destination (moveTo)
  'Fallback', // mc:AlternateContent's copy for older readers (text boxes would appear twice)
]);
/** Footnotes and endnotes Word keeps as separator lines, not notes. */
const SEPARATORS = new Set(['separator', 'continuationSeparator', 'continuationNotice']);
const NOTES = new Set(['footnote', 'endnote', 'comment']);

/**
 * The text of one WordprocessingML part (document, header, footer, footnotes, endnotes,
 * comments), read by a streaming XML parser fed a MiB at a time: memory stays near the size of
 * the XML plus its text, not a DOM's many times that. Paragraphs end with a blank line; table
 * cells with a tab and rows with a line break; tabs, breaks and non-breaking hyphens are kept;
 * ruby keeps its base text; field results are kept and instructions dropped; footnote and
 * endnote references become `[1]` and `[e1]`.
 */
export function wordPartText(xml: Buffer): WordPartText {
  const out: string[] = [];
  const notes: WordNote[] = [];
  let note: { kind: WordNote['kind']; id: string; author?: string; parts: string[] } | null = null;
  let skipping = 0;
  let inText = 0;
  let inCell = 0;
  const emit = (s: string) => (note ? note.parts : out).push(s);
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = local(name);
      if (skipping > 0 || SKIP.has(tag) || (NOTES.has(tag) && SEPARATORS.has(attrs['w:type'] ?? ''))) {
        skipping++;
        return;
      }
      switch (tag) {
        case 't':
          inText++;
          break;
        case 'tab':
          emit('\t');
          break;
        case 'br':
        case 'cr':
          emit('\n');
          break;
        case 'noBreakHyphen':
          emit('-');
          break;
        case 'tc':
          inCell++;
          break;
        case 'footnoteReference':
          emit(`[${attrs['w:id'] ?? ''}]`);
          break;
        case 'endnoteReference':
          emit(`[e${attrs['w:id'] ?? ''}]`);
          break;
        case 'sym': {
          // Symbol-font characters live in the private-use area: no text to keep.
          const code = parseInt(attrs['w:char'] ?? '', 16);
          if (code > 0 && code < 0xe000) emit(String.fromCharCode(code));
          break;
        }
        default:
          if (NOTES.has(tag))
            note = {
              kind: tag as WordNote['kind'],
              id: attrs['w:id'] ?? '',
              ...(attrs['w:author'] ? { author: attrs['w:author'] } : {}),
              parts: [],
            };
      }
    },
    ontext(text) {
      if (inText > 0 && skipping === 0) emit(text);
    },
    onclosetag(name) {
      if (skipping > 0) {
        skipping--;
        return;
      }
      const tag = local(name);
      if (tag === 't') inText--;
      else if (tag === 'p') emit(inCell > 0 ? ' ' : '\n\n');
      else if (tag === 'tc') {
        inCell--;
        emit('\t');
      } else if (tag === 'tr') emit('\n');
      else if (tag === 'tbl') emit('\n\n');
      else if (NOTES.has(tag) && note) {
        const text = tidy(note.parts.join(''));
        if (text) notes.push({ kind: note.kind, id: note.id, ...(note.author ? { author: note.author } : {}), text });
        note = null;
      }
    },
  });
  return { text: tidy(out.join('')), notes };
}
