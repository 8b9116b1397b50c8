import { localName, parseXml, tidyText } from './xmlStream.js';

/** A footnote, endnote or comment of an OpenDocument file, kept to follow the body. */
export interface OdfNote {
  label: string;
  text: string;
}

/** A page of an OpenDocument presentation: its text and its speaker notes. */
export interface OdfPage {
  name: string;
  text: string;
  notes: string;
}

export interface OdfContent {
  /** The text outside notes, comments and presentation pages. */
  text: string;
  notes: OdfNote[];
  pages: OdfPage[];
}

/** Elements whose content is not the document's text (tracked deletions, metadata, names of sequences). */
const SKIP = new Set(['tracked-changes', 'sequence-decls', 'creator', 'date', 'note-citation', 'page-thumbnail']);
const BLOCKS = new Set(['p', 'h']);

/**
 * The text of an OpenDocument `content.xml` (ODT, ODP), read by a streaming XML parser:
 * paragraphs and headings end with a blank line (a line break inside list items and table
 * cells' last paragraph), table cells with a tab and rows with a line break; `text:s`, tabs and
 * line breaks are kept. Footnotes and endnotes become `[1]` in the text and "Footnote 1: …"
 * after it; comments "Comment (author): …". Each `draw:page` is a page of its own, with its
 * `presentation:notes` apart.
 */
export function odfContentText(xml: Buffer): OdfContent {
  const body: string[] = [];
  const notes: OdfNote[] = [];
  const pages: OdfPage[] = [];
  let page: { name: string; text: string[]; notes: string[] } | null = null;
  let inPageNotes = 0;
  let note: { label: string; parts: string[] } | null = null;
  let comment: { author: string[]; parts: string[] } | null = null;
  let inCreator = false;
  let skipping = 0;
  let inCell = 0;
  const sink = () => note?.parts ?? comment?.parts ?? (page ? (inPageNotes > 0 ? page.notes : page.text) : body);
  const emit = (s: string) => sink().push(s);
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if (tag === 'creator' && comment) inCreator = true;
      if (skipping > 0 || SKIP.has(tag)) {
        skipping++;
        return;
      }
      switch (tag) {
        case 's':
          emit(' '.repeat(Math.min(100, Math.max(1, Number(attrs['text:c']) || 1))));
          break;
        case 'tab':
          emit('\t');
          break;
        case 'line-break':
          emit('\n');
          break;
        case 'table-cell':
          inCell++;
          break;
        case 'note': {
          const citation = attrs['text:note-class'] === 'endnote' ? 'Endnote' : 'Footnote';
          const id = (attrs['text:id'] ?? '').replace(/^\D+/, '');
          emit(`[${citation === 'Endnote' ? 'e' : ''}${id}]`);
          note = { label: `${citation} ${citation === 'Endnote' ? 'e' : ''}${id}`, parts: [] };
          break;
        }
        case 'annotation':
          if (name.startsWith('office:')) comment = { author: [], parts: [] };
          break;
        case 'page':
          if (name.startsWith('draw:')) page = { name: attrs['draw:name'] ?? '', text: [], notes: [] };
          break;
        case 'notes':
          if (name.startsWith('presentation:')) inPageNotes++;
          break;
      }
    },
    ontext(text) {
      if (inCreator && comment) comment.author.push(text);
      else if (skipping === 0) emit(text);
    },
    onclosetag(name) {
      const tag = localName(name);
      if (tag === 'creator') inCreator = false;
      if (skipping > 0) {
        skipping--;
        return;
      }
      if (BLOCKS.has(tag)) emit(inCell > 0 ? ' ' : '\n\n');
      else if (tag === 'table-cell') {
        inCell--;
        emit('\t');
      } else if (tag === 'table-row') emit('\n');
      else if (tag === 'table') emit('\n\n');
      else if (tag === 'note' && note) {
        const text = tidyText(note.parts.join(''));
        if (text) notes.push({ label: note.label, text });
        note = null;
      } else if (tag === 'annotation' && comment && name.startsWith('office:')) {
        const text = tidyText(comment.parts.join(''));
        const author = comment.author.join('').trim();
        if (text) notes.push({ label: `Comment${author ? ` (${author})` : ''}`, text });
        comment = null;
      } else if (tag === 'notes' && name.startsWith('presentation:')) inPageNotes--;
      else if (tag === 'page' && name.startsWith('draw:') && page) {
        pages.push({ name: page.name, text: tidyText(page.text.join('')), notes: tidyText(page.notes.join('')) });
        page = null;
      }
    },
  });
  return { text: tidyText(body.join('')), notes, pages };
}
