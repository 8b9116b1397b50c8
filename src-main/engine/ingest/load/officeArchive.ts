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

/** Relationship targets by id from a `_rels/*.rels` part, resolved against `baseDir` (e.g. `xl/`). */
export function relationshipTargets(xml: Buffer | undefined, baseDir: string): Map<string, string> {
  const targets = new Map<string, string>();
  if (!xml) return targets;
  const text = xml.toString('utf8');
  for (const m of text.matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
    const id = /\bId="([^"]*)"/.exec(m[1]!)?.[1];
    const target = /\bTarget="([^"]*)"/.exec(m[1]!)?.[1];
    if (id && target) targets.set(id, resolvePartName(baseDir, target));
  }
  return targets;
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
