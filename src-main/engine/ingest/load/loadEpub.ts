import { badInput } from '../badInput.js';
import { primaryLanguage } from '../detectLanguage.js';
import type { LoadedText } from '../types.js';
import { decodeText } from './decodeText.js';
import { htmlBodyText } from './loadHtml.js';
import { openOfficeArchive, readPart, resolvePartName, type OfficeArchiveOptions } from './officeArchive.js';
import { localName, parseXml } from './xmlStream.js';

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
export function loadEpub(bytes: Buffer, path: string, options: OfficeArchiveOptions = {}): LoadedText {
  const archive = openOfficeArchive(bytes, path, KIND, 'META-INF/container.xml', options);
  const rootfile = readPart(
    path,
    KIND,
    'META-INF/container.xml',
    () =>
      /<(?:\w+:)?rootfile\b[^>]*\bfull-path="([^"]+)"/.exec(
        archive.read('META-INF/container.xml')!.toString('utf8'),
      )?.[1],
  );
  const opfName = rootfile ? resolvePartName('', decodeURIComponent(rootfile)) : undefined;
  if (!opfName || !archive.has(opfName))
    throw badInput(path, 'not an EPUB file (META-INF/container.xml names no package document in the archive)');
  const pkg = readPart(path, KIND, opfName, () => readPackage(archive.read(opfName)!));
  const base = opfName.includes('/') ? opfName.slice(0, opfName.lastIndexOf('/') + 1) : '';
  const chapters: string[] = [];
  for (const id of pkg.spine) {
    const item = pkg.items.get(id);
    if (!item || !CHAPTER_TYPES.has(item.type)) continue;
    const name = resolvePartName(base, safeDecode(item.href.replace(/#.*$/, '')));
    if (!archive.has(name)) continue;
    const text = readPart(path, KIND, name, () => htmlBodyText(decodeText(archive.read(name)!, path).text));
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
