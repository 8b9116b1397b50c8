import { PolyhopError } from '../../base/errors.js';
import { badInput, formatBytes } from '../badInput.js';
import { withZipArchive, type ZipLimits, type ZipSource } from './zipArchive.js';

export interface OfficeArchiveOptions {
  zip?: ZipLimits;
  /** A part larger than this, uncompressed, is refused. Default: 128 MiB. */
  maxXmlBytes?: number;
}

export const DEFAULT_OFFICE_XML_BYTES = 128 * 1024 ** 2;

export interface OfficeArchive {
  names: readonly string[];
  has(name: string): boolean;
  /** The part's inflated bytes; undefined when the archive lacks it. */
  read(name: string): Promise<Buffer | undefined>;
  /** `parse` run on the part's bytes, a parser's failure turned into BAD_INPUT naming the part; undefined when the archive lacks it. */
  part<T>(name: string, parse: (xml: Buffer) => T): Promise<T | undefined>;
}

/**
 * Opens an Office Open XML, OpenDocument or EPUB package and runs `use` on it: lists the zip
 * (refusing archives past the zip limits), requires `mainPart` (refusing with "not a <kind>
 * file" otherwise), reads parts on demand, refusing one above `maxXmlBytes` before inflating
 * it, and afterwards checks the parts `use` did not read (see `withZipArchive`).
 */
export function withOfficeArchive<T>(
  source: ZipSource,
  path: string,
  kind: string,
  mainPart: string,
  options: OfficeArchiveOptions,
  use: (archive: OfficeArchive) => Promise<T>,
): Promise<T> {
  const { maxXmlBytes = DEFAULT_OFFICE_XML_BYTES } = options;
  return withZipArchive(source, path, options.zip, async (zip) => {
    if (!zip.has(mainPart)) throw badInput(path, `not a ${kind} file (no ${mainPart} in the archive)`);
    const read = async (name: string): Promise<Buffer | undefined> => {
      const entry = zip.entry(name);
      if (entry && entry.uncompressedSize > maxXmlBytes) {
        throw badInput(
          path,
          `${name} is ${formatBytes(entry.uncompressedSize)} of XML, above the ${formatBytes(maxXmlBytes)} limit for a ${kind} part`,
          { details: { limit: 'docxXml', size: entry.uncompressedSize, maxXmlBytes } },
        );
      }
      return zip.read(name);
    };
    return use({
      names: zip.names,
      has: (name) => zip.has(name),
      read,
      async part(name, parse) {
        const xml = await read(name);
        if (!xml) return undefined;
        try {
          return parse(xml);
        } catch (error) {
          if (error instanceof PolyhopError) throw error;
          throw badInput(path, `cannot read ${kind} part ${name} (${(error as Error).message})`, { cause: error });
        }
      },
    });
  });
}

export interface Relationship {
  id: string;
  /** The relationship type's last segment, e.g. `slide`, `notesSlide`, `worksheet`. */
  type: string;
  /** The part it points to, resolved against the base folder. */
  target: string;
}

/** The relationships of a `_rels/*.rels` part, targets resolved against `baseDir` (e.g. `xl/`); external ones left out. */
export function relationships(xml: Buffer | undefined, baseDir: string): Relationship[] {
  const out: Relationship[] = [];
  if (!xml) return out;
  for (const m of xml.toString('utf8').matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
    const attr = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1]!)?.[1];
    const id = attr('Id');
    const target = attr('Target');
    if (!id || !target || attr('TargetMode') === 'External') continue;
    out.push({ id, type: (attr('Type') ?? '').split('/').pop()!, target: resolvePartName(baseDir, target) });
  }
  return out;
}

/** Relationship targets by id (see {@link relationships}). */
export function relationshipTargets(xml: Buffer | undefined, baseDir: string): Map<string, string> {
  return new Map(relationships(xml, baseDir).map((r) => [r.id, r.target]));
}

/** `xl/` + `worksheets/sheet1.xml` → `xl/worksheets/sheet1.xml`; `/xl/x.xml` → `xl/x.xml`; `..` is resolved. */
export function resolvePartName(baseDir: string, target: string): string {
  const parts = (target.startsWith('/') ? target.slice(1) : baseDir + target).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}
