import type { LoadedText } from '../types.js';
import { odfContentText } from './odfText.js';
import { openOfficeArchive, readPart, type OfficeArchiveOptions } from './officeArchive.js';

/** Text of an ODT: the body, then its footnotes, endnotes and comments, each marked (see `odfContentText`). */
export function loadOdt(bytes: Buffer, path: string, options: OfficeArchiveOptions = {}): LoadedText {
  const archive = openOfficeArchive(bytes, path, 'ODT', 'content.xml', options);
  const content = readPart(path, 'ODT', 'content.xml', () => odfContentText(archive.read('content.xml')!));
  const sections = [content.text, ...content.notes.map((n) => `${n.label}: ${n.text}`)];
  return { text: sections.filter((s) => s).join('\n\n'), mime: 'application/vnd.oasis.opendocument.text' };
}
