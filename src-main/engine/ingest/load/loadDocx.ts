import type { LoadedText } from '../types.js';
import {
  DEFAULT_OFFICE_XML_BYTES,
  withOfficeArchive,
  type OfficeArchive,
  type OfficeArchiveOptions,
} from './officeArchive.js';
import { wordPartText, type WordNote } from './wordprocessingText.js';
import type { ZipSource } from './zipArchive.js';

export type LoadDocxOptions = OfficeArchiveOptions;

export const DEFAULT_DOCX_XML_BYTES = DEFAULT_OFFICE_XML_BYTES;

const HEADER_FOOTER = /^word\/(header|footer)(\d*)\.xml$/;
const NOTE_PARTS = ['word/footnotes.xml', 'word/endnotes.xml', 'word/comments.xml'];
const NOTE_LABEL: Readonly<Record<WordNote['kind'], string>> = {
  footnote: 'Footnote',
  endnote: 'Endnote',
  comment: 'Comment',
};

/**
 * Text of a DOCX, after proving the zip cannot inflate beyond the limits: the body, then each
 * distinct header and footer once ("Header: …"), then footnotes, endnotes and comments, each
 * marked ("Footnote 1: …", "Comment (Ada Kestrel): …"). Each part is read by a streaming XML
 * parser; a part above `maxXmlBytes` is refused, naming the limit.
 */
export function loadDocx(source: ZipSource, path: string, options: LoadDocxOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, 'DOCX', 'word/document.xml', options, docxText);
}

async function docxText(archive: OfficeArchive): Promise<LoadedText> {
  const read = async (name: string) => (await archive.part(name, wordPartText))!;
  const sections = [(await read('word/document.xml')).text];
  const seen = new Set<string>();
  const furniture = archive.names
    .filter((name) => HEADER_FOOTER.test(name))
    .sort((a, b) => furnitureOrder(a) - furnitureOrder(b) || a.localeCompare(b));
  for (const name of furniture) {
    const { text } = await read(name);
    if (!text || seen.has(text)) continue;
    seen.add(text);
    sections.push(`${HEADER_FOOTER.exec(name)![1] === 'header' ? 'Header' : 'Footer'}: ${text}`);
  }
  for (const name of NOTE_PARTS) {
    if (!archive.has(name)) continue;
    for (const note of (await read(name)).notes) {
      const label =
        note.kind === 'comment'
          ? `Comment${note.author ? ` (${note.author})` : ''}`
          : `${NOTE_LABEL[note.kind]} ${note.kind === 'endnote' ? 'e' : ''}${note.id}`;
      sections.push(`${label}: ${note.text}`);
    }
  }
  return {
    text: sections.filter((s) => s).join('\n\n'),
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  };
}

/** Headers before footers. */
function furnitureOrder(name: string): number {
  return name.startsWith('word/header') ? 0 : 1;
}
