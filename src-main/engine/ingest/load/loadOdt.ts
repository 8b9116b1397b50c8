import type { LoadedText } from '../types.js';
import { odfContentText } from './odfText.js';
import { withOfficeArchive, type OfficeArchiveOptions } from './officeArchive.js';
import type { ZipSource } from './zipArchive.js';

/** Text of an ODT: the body, then its footnotes, endnotes and comments, each marked (see `odfContentText`). */
export function loadOdt(source: ZipSource, path: string, options: OfficeArchiveOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, 'ODT', 'content.xml', options, async (archive) => {
    const content = (await archive.part('content.xml', odfContentText))!;
    const sections = [content.text, ...content.notes.map((n) => `${n.label}: ${n.text}`)];
    return { text: sections.filter((s) => s).join('\n\n'), mime: 'application/vnd.oasis.opendocument.text' };
  });
}
