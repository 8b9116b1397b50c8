import { crc32, inflateRawSync } from 'node:zlib';
import { badInput, formatBytes } from '../badInput.js';

export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  /** CRC-32 of the uncompressed bytes, from the central directory. */
  crc32: number;
}

export interface ZipLimits {
  /** Default: 10,000. */
  maxEntries?: number;
  /** Sum of declared uncompressed sizes. Default: 512 MiB. */
  maxUncompressedBytes?: number;
  /** Per-entry uncompressed/compressed ratio, for entries over 1 MiB. Default: 100 (Office XML is ~5–20). */
  maxRatio?: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Reads a zip's central directory (the listing at its end) without decompressing anything, so
 * limits can be checked before a single byte is inflated. ZIP64 is refused: no document format
 * we read needs entries or archives above 4 GiB.
 */
export function readZipDirectory(bytes: Buffer, path: string): ZipEntry[] {
  const corrupt = (why: string) => badInput(path, `corrupt zip archive (${why})`);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw corrupt('no end-of-central-directory record');
  const count = bytes.readUInt16LE(eocd + 10);
  const size = bytes.readUInt32LE(eocd + 12);
  const offset = bytes.readUInt32LE(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw badInput(path, 'ZIP64 archives are not supported');
  if (offset + size > eocd) throw corrupt('central directory out of bounds');
  const entries: ZipEntry[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > eocd || bytes.readUInt32LE(p) !== CENTRAL) throw corrupt(`bad central directory entry ${n}`);
    const nameLength = bytes.readUInt16LE(p + 28);
    const entry: ZipEntry = {
      name: bytes.toString('utf8', p + 46, p + 46 + nameLength),
      method: bytes.readUInt16LE(p + 10),
      encrypted: (bytes.readUInt16LE(p + 8) & 1) === 1,
      compressedSize: bytes.readUInt32LE(p + 20),
      uncompressedSize: bytes.readUInt32LE(p + 24),
      localHeaderOffset: bytes.readUInt32LE(p + 42),
      crc32: bytes.readUInt32LE(p + 16),
    };
    if (entry.compressedSize === 0xffffffff || entry.uncompressedSize === 0xffffffff)
      throw badInput(path, 'ZIP64 archives are not supported');
    entries.push(entry);
    p += 46 + nameLength + bytes.readUInt16LE(p + 30) + bytes.readUInt16LE(p + 32);
  }
  return entries;
}

/**
 * Refuses archives that would inflate beyond the limits (zip bombs), first from the declared
 * sizes, then by inflating each entry with an output cap equal to its declared size, since a
 * crafted archive can declare small sizes and inflate to gigabytes; and corrupt archives: each
 * entry's bytes must match the CRC-32 the archive records for it (a flipped byte in a deflated
 * entry often still inflates, to wrong text). Memory stays within the largest declared entry.
 */
export function checkZipLimits(
  bytes: Buffer,
  entries: readonly ZipEntry[],
  path: string,
  limits: ZipLimits = {},
): void {
  const { maxEntries = 10_000, maxUncompressedBytes = 512 * 1024 ** 2, maxRatio = 100 } = limits;
  const bomb = (why: string) =>
    badInput(path, `refused as a possible zip bomb: ${why}`, { details: { zipBomb: true } });
  if (entries.length > maxEntries) throw bomb(`${entries.length} entries (limit ${maxEntries})`);
  let total = 0;
  for (const e of entries) {
    total += e.uncompressedSize;
    if (total > maxUncompressedBytes) throw bomb(`expands to more than ${formatBytes(maxUncompressedBytes)}`);
    if (e.uncompressedSize > 1024 ** 2 && e.uncompressedSize / Math.max(1, e.compressedSize) > maxRatio) {
      throw bomb(
        `entry ${e.name} expands ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))}× (limit ${maxRatio}×)`,
      );
    }
  }
  for (const e of entries) {
    if (e.encrypted) throw badInput(path, `archive entry ${e.name} is encrypted`);
    const data = entryData(bytes, e, path);
    if (e.method === 0) {
      if (data.length !== e.uncompressedSize)
        throw badInput(path, `corrupt zip archive (entry ${e.name} size mismatch)`);
      checkCrc(data, e, path);
      continue;
    }
    if (e.method !== 8) throw badInput(path, `archive entry ${e.name} uses unsupported compression method ${e.method}`);
    let inflated: Buffer;
    try {
      inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, e.uncompressedSize) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw bomb(`entry ${e.name} inflates beyond its declared ${formatBytes(e.uncompressedSize)}`);
      throw badInput(path, `corrupt zip archive (entry ${e.name} does not inflate)`, { cause: error });
    }
    if (inflated.length !== e.uncompressedSize)
      throw badInput(path, `corrupt zip archive (entry ${e.name} size mismatch)`);
    checkCrc(inflated, e, path);
  }
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/** BAD_INPUT naming the file and the entry when the entry's bytes are not the ones the archive recorded. */
function checkCrc(data: Buffer, e: ZipEntry, path: string): void {
  const actual = crc32(data);
  if (actual !== e.crc32)
    throw badInput(
      path,
      `corrupt zip archive (entry ${e.name} fails its CRC-32 check: recorded ${hex(e.crc32)}, read ${hex(actual)})`,
      { details: { entry: e.name } },
    );
}

/** The compressed bytes of an entry, located through its local header. */
export function entryData(bytes: Buffer, e: ZipEntry, path: string): Buffer {
  const p = e.localHeaderOffset;
  if (p + 30 > bytes.length || bytes.readUInt32LE(p) !== LOCAL)
    throw badInput(path, `corrupt zip archive (bad local header for ${e.name})`);
  const start = p + 30 + bytes.readUInt16LE(p + 26) + bytes.readUInt16LE(p + 28);
  if (start + e.compressedSize > bytes.length) throw badInput(path, `corrupt zip archive (entry ${e.name} truncated)`);
  return bytes.subarray(start, start + e.compressedSize);
}
