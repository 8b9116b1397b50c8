import { inflateRawSync } from 'node:zlib';
import { badInput, formatBytes } from '../badInput.js';
import type { LoadedText } from '../types.js';
import { wordPartText, type WordNote } from './wordprocessingText.js';
import { checkZipLimits, entryData, readZipDirectory, type ZipEntry, type ZipLimits } from './zipArchive.js';

export interface LoadDocxOptions {
  zip?: ZipLimits;
  /** A text part (document, header, footnotes…) larger than this, uncompressed, is refused. Default: 128 MiB. */
  maxXmlBytes?: number;
}

export const DEFAULT_DOCX_XML_BYTES = 128 * 1024 ** 2;

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
export function loadDocx(bytes: Buffer, path: string, options: LoadDocxOptions = {}): LoadedText {
  const { maxXmlBytes = DEFAULT_DOCX_XML_BYTES } = options;
  const entries = readZipDirectory(bytes, path);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const document = byName.get('word/document.xml');
  if (!document) throw badInput(path, 'not a DOCX file (no word/document.xml in the archive)');
  checkZipLimits(bytes, entries, path, options.zip);
  const read = (entry: ZipEntry) => {
    if (entry.uncompressedSize > maxXmlBytes) {
      throw badInput(
        path,
        `${entry.name} is ${formatBytes(entry.uncompressedSize)} of XML, above the ${formatBytes(maxXmlBytes)} limit for a DOCX part`,
        {
          details: { limit: 'docxXml', size: entry.uncompressedSize, maxXmlBytes },
        },
      );
    }
    const data = entryData(bytes, entry, path);
    try {
      return wordPartText(
        entry.method === 0 ? data : inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) }),
      );
    } catch (error) {
      throw badInput(path, `cannot read DOCX part ${entry.name} (${(error as Error).message})`, { cause: error });
    }
  };

  const sections = [read(document).text];
  const seen = new Set<string>();
  const furniture = entries
    .filter((e) => HEADER_FOOTER.test(e.name))
    .sort((a, b) => furnitureOrder(a.name) - furnitureOrder(b.name) || a.name.localeCompare(b.name));
  for (const entry of furniture) {
    const { text } = read(entry);
    if (!text || seen.has(text)) continue;
    seen.add(text);
    sections.push(`${HEADER_FOOTER.exec(entry.name)![1] === 'header' ? 'Header' : 'Footer'}: ${text}`);
  }
  for (const name of NOTE_PARTS) {
    const entry = byName.get(name);
    if (!entry) continue;
    for (const note of read(entry).notes) {
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
