import { inflateRawSync } from 'node:zlib';
import { PolyhopError } from '../../base/errors.js';
import { badInput, formatBytes } from '../badInput.js';
import { checkZipLimits, entryData, readZipDirectory, type ZipEntry, type ZipLimits } from './zipArchive.js';

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
  read(name: string): Buffer | undefined;
}

/**
 * Opens an Office Open XML or OpenDocument package: lists the zip, requires `mainPart`
 * (refusing with `notThis` otherwise), proves the archive cannot inflate beyond the zip
 * limits, and reads parts on demand, refusing one above `maxXmlBytes` naming the limit.
 */
export function openOfficeArchive(
  bytes: Buffer,
  path: string,
  kind: string,
  mainPart: string,
  options: OfficeArchiveOptions = {},
): OfficeArchive {
  const { maxXmlBytes = DEFAULT_OFFICE_XML_BYTES } = options;
  const entries = readZipDirectory(bytes, path);
  const byName = new Map(entries.map((e) => [e.name, e]));
  if (!byName.has(mainPart)) throw badInput(path, `not a ${kind} file (no ${mainPart} in the archive)`);
  checkZipLimits(bytes, entries, path, options.zip);
  const inflate = (entry: ZipEntry): Buffer => {
    if (entry.uncompressedSize > maxXmlBytes) {
      throw badInput(
        path,
        `${entry.name} is ${formatBytes(entry.uncompressedSize)} of XML, above the ${formatBytes(maxXmlBytes)} limit for a ${kind} part`,
        { details: { limit: 'docxXml', size: entry.uncompressedSize, maxXmlBytes } },
      );
    }
    const data = entryData(bytes, entry, path);
    return entry.method === 0 ? data : inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  };
  return {
    names: entries.map((e) => e.name),
    has: (name) => byName.has(name),
    read(name) {
      const entry = byName.get(name);
      return entry ? inflate(entry) : undefined;
    },
  };
}

/** Runs `parse` on a part, turning a parser's failure into BAD_INPUT naming the part. */
export function readPart<T>(path: string, kind: string, name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof PolyhopError) throw error;
    throw badInput(path, `cannot read ${kind} part ${name} (${(error as Error).message})`, { cause: error });
  }
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
