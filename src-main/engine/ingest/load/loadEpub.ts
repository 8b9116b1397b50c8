import { badInput } from '../badInput.js';
import { primaryLanguage } from '../detectLanguage.js';
import type { LoadedText } from '../types.js';
import { decodeText } from './decodeText.js';
import { htmlBodyText } from './loadHtml.js';
import { resolvePartName, withOfficeArchive, type OfficeArchive, type OfficeArchiveOptions } from './officeArchive.js';
import { localName, parseXml } from './xmlStream.js';
import type { ZipSource } from './zipArchive.js';

const KIND = 'EPUB';
const CHAPTER_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

interface Package {
  title: string;
  language: string;
  /** Manifest hrefs by id. */
  items: Map<string, { href: string; type: string }>;
  spine: string[];
}

/**
 * Text of an EPUB (2 or 3): the chapters in the spine's reading order (not the manifest's or
 * the archive's), each the whole text of its XHTML, a blank line between them; the title and
 * language from the package's Dublin Core metadata. The archive is checked like DOCX (zip-bomb
 * limits, each part under the XML limit).
 */
export function loadEpub(source: ZipSource, path: string, options: OfficeArchiveOptions = {}): Promise<LoadedText> {
  return withOfficeArchive(source, path, KIND, 'META-INF/container.xml', options, (archive) => bookText(archive, path));
}

async function bookText(archive: OfficeArchive, path: string): Promise<LoadedText> {
  const rootfile = await archive.part(
    'META-INF/container.xml',
    (xml) => /<(?:\w+:)?rootfile\b[^>]*\bfull-path="([^"]+)"/.exec(xml.toString('utf8'))?.[1],
  );
  const opfName = rootfile ? resolvePartName('', decodeURIComponent(rootfile)) : undefined;
  if (!opfName || !archive.has(opfName))
    throw badInput(path, 'not an EPUB file (META-INF/container.xml names no package document in the archive)');
  const pkg = (await archive.part(opfName, readPackage))!;
  const base = opfName.includes('/') ? opfName.slice(0, opfName.lastIndexOf('/') + 1) : '';
  const chapters: string[] = [];
  for (const id of pkg.spine) {
    const item = pkg.items.get(id);
    if (!item || !CHAPTER_TYPES.has(item.type)) continue;
    const name = resolvePartName(base, safeDecode(item.href.replace(/#.*$/, '')));
    if (!archive.has(name)) continue;
    const text = (await archive.part(name, (xml) => htmlBodyText(decodeText(xml, path).text)))!;
    if (text.trim()) chapters.push(text.trim());
  }
  const language = primaryLanguage(pkg.language);
  return {
    text: chapters.join('\n\n'),
    mime: 'application/epub+zip',
    ...(pkg.title ? { title: pkg.title } : {}),
    ...(language ? { language } : {}),
  };
}

function safeDecode(href: string): string {
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}

function readPackage(xml: Buffer): Package {
  const pkg: Package = { title: '', language: '', items: new Map(), spine: [] };
  let field: 'title' | 'language' | null = null;
  parseXml(xml, {
    onopentag(name, attrs) {
      const tag = localName(name);
      if ((tag === 'title' || tag === 'language') && !pkg[tag]) field = tag;
      else if (tag === 'item' && attrs['id'] && attrs['href'])
        pkg.items.set(attrs['id'], { href: attrs['href'], type: attrs['media-type'] ?? '' });
      else if (tag === 'itemref' && attrs['idref']) pkg.spine.push(attrs['idref']);
    },
    ontext(text) {
      if (field) pkg[field] += text;
    },
    onclosetag() {
      if (field) pkg[field] = pkg[field].trim();
      field = null;
    },
  });
  return pkg;
}
