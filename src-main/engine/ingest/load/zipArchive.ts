import { read } from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, inflateRawSync } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { PolyhopError } from '../../base/errors.js';
import { badInput, formatBytes } from '../badInput.js';

export interface ZipLimits {
  /** Default: 10,000. */
  maxEntries?: number;
  /** Sum of declared uncompressed sizes. Default: 512 MiB. */
  maxUncompressedBytes?: number;
  /** Per-entry uncompressed/compressed ratio, for entries over 1 MiB. Default: 100 (Office XML is ~5–20). */
  maxRatio?: number;
}

/** Where the archive's bytes are: in memory (a mail attachment), or an open file read on demand (its size at open). */
export type ZipSource = Buffer | { fd: number; size: number };

/** What an entry says of itself in the central directory. */
export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

const YAUZL_OPTIONS = {
  lazyEntries: true,
  autoClose: false,
  // Names are decoded (CP437 or UTF-8) and refused when absolute or climbing out with `..`.
  decodeStrings: true,
  // An entry inflating past its declared size errors at the first extra byte.
  validateEntrySizes: true,
} as const;

const readAt = promisify(read);
/**
 * Entries up to this size, inflated, are read raw and inflated in one zlib call: a zlib stream
 * per entry costs ~0.3 ms, which made a 47-part PPTX take 5× as long; larger ones are streamed.
 */
const SMALL_ENTRY_BYTES = 1024 ** 2;
const RANGE_CHUNK = 64 * 1024;

/**
 * Reads ranges of a file its caller keeps open and closes: yauzl's own fd reader closes the fd
 * when the archive closes (and an fs read stream on a borrowed fd closes it when destroyed), while
 * the caller still checks the file through it afterwards.
 */
class BorrowedFdReader extends yauzl.RandomAccessReader {
  readonly #fd: number;

  constructor(fd: number) {
    super();
    this.#fd = fd;
  }

  /** Headers and the directory in direct reads: yauzl's default goes through three streams per read. */
  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null) => void,
  ): void {
    const fd = this.#fd;
    void (async () => {
      for (let done = 0; done < length;) {
        const { bytesRead } = await readAt(fd, buffer, offset + done, length - done, position + done);
        if (bytesRead === 0) throw new Error('unexpected EOF');
        done += bytesRead;
      }
    })().then(
      () => callback(null),
      (error: unknown) => callback(error as Error),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const fd = this.#fd;
    return Readable.from(
      (async function* () {
        for (let at = start; at < end;) {
          const want = Math.min(RANGE_CHUNK, end - at);
          const { bytesRead, buffer } = await readAt(fd, Buffer.allocUnsafe(want), 0, want, at);
          if (bytesRead === 0) throw new Error('unexpected EOF');
          at += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      })(),
      { objectMode: false },
    );
  }
}

const UNSAFE_NAME = /^(invalid characters in fileName|absolute path|invalid relative path): /;
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/**
 * A zip read through yauzl from memory or from a file: the central directory is listed at
 * open and held to {@link ZipLimits} before a byte is inflated; each entry is inflated when
 * read, capped at its declared size and checked against its CRC-32 (yauzl checks neither the
 * CRC nor the ratio). {@link verifyRest} streams the entries nobody read through the same
 * checks without keeping them, so an archive is refused whole as before, in bounded memory.
 */
export class ZipArchive {
  readonly #zip: ZipFile;
  readonly #path: string;
  readonly #entries: Entry[];
  readonly #byName: Map<string, Entry>;
  readonly #checked = new Set<Entry>();

  private constructor(zip: ZipFile, path: string, entries: Entry[]) {
    this.#zip = zip;
    this.#path = path;
    this.#entries = entries;
    this.#byName = new Map(entries.map((e) => [e.fileName, e]));
  }

  /** Opens and lists `source`, refusing corrupt, encrypted and zip-bomb archives (BAD_INPUT naming `path`). */
  static async open(source: ZipSource, path: string, limits: ZipLimits = {}): Promise<ZipArchive> {
    const zip = await yauzlCall(path, undefined, () =>
      Buffer.isBuffer(source)
        ? yauzl.fromBufferPromise(source, YAUZL_OPTIONS)
        : yauzl.fromRandomAccessReaderPromise(new BorrowedFdReader(source.fd), source.size, YAUZL_OPTIONS),
    );
    try {
      return new ZipArchive(zip, path, await listEntries(zip, path, limits));
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  get names(): string[] {
    return this.#entries.map((e) => e.fileName);
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  entry(name: string): ZipEntryInfo | undefined {
    const e = this.#byName.get(name);
    return e && { name, compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize };
  }

  /** The inflated, CRC-checked bytes of `name`; undefined when the archive lacks it. */
  async read(name: string): Promise<Buffer | undefined> {
    const entry = this.#byName.get(name);
    if (!entry) return undefined;
    const chunks: Buffer[] = [];
    await this.#stream(entry, (chunk) => chunks.push(chunk));
    return Buffer.concat(chunks, entry.uncompressedSize);
  }

  /** Inflates every entry not read yet, keeping nothing, so that a lying or damaged one is refused. */
  async verifyRest(): Promise<void> {
    for (const entry of this.#entries) if (!this.#checked.has(entry)) await this.#stream(entry, () => {});
  }

  close(): void {
    this.#zip.close();
  }

  async #rawBytes(entry: Entry): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.#zip.openReadStreamPromise(entry, { decodeFileData: false }))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** One zlib call, capped at the declared size, as yauzl's size check does for streamed entries. */
  #inflateSmall(entry: Entry, raw: Buffer): Buffer {
    const name = entry.fileName;
    let data: Buffer;
    try {
      data = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw zipBomb(this.#path, `entry ${name} inflates beyond its declared ${formatBytes(entry.uncompressedSize)}`);
      throw badInput(this.#path, `corrupt zip archive (entry ${name} does not inflate)`, { cause: error });
    }
    if (data.length !== entry.uncompressedSize)
      throw badInput(this.#path, `corrupt zip archive (entry ${name} size mismatch)`);
    return data;
  }

  async #stream(entry: Entry, onChunk: (chunk: Buffer) => void): Promise<void> {
    const name = entry.fileName;
    let crc = 0;
    await yauzlCall(this.#path, name, async () => {
      if (entry.compressionMethod === 8 && entry.uncompressedSize <= SMALL_ENTRY_BYTES) {
        const data = this.#inflateSmall(entry, await this.#rawBytes(entry));
        crc = crc32(data);
        onChunk(data);
        return;
      }
      for await (const chunk of await this.#zip.openReadStreamPromise(entry)) {
        crc = crc32(chunk as Buffer, crc);
        onChunk(chunk as Buffer);
      }
    });
    if (crc !== entry.crc32)
      throw badInput(
        this.#path,
        `corrupt zip archive (entry ${name} fails its CRC-32 check: recorded ${hex(entry.crc32)}, read ${hex(crc)})`,
        { details: { entry: name } },
      );
    this.#checked.add(entry);
  }
}

/**
 * Opens `source`, runs `use`, then verifies the entries `use` did not read (see
 * {@link ZipArchive.verifyRest}), and closes the archive whatever happens.
 */
export async function withZipArchive<T>(
  source: ZipSource,
  path: string,
  limits: ZipLimits | undefined,
  use: (zip: ZipArchive) => Promise<T>,
): Promise<T> {
  const zip = await ZipArchive.open(source, path, limits);
  try {
    const result = await use(zip);
    await zip.verifyRest();
    return result;
  } finally {
    zip.close();
  }
}

function zipBomb(path: string, why: string): PolyhopError {
  return badInput(path, `refused as a possible zip bomb: ${why}`, { details: { zipBomb: true } });
}

/** Reads the central directory one entry at a time, refusing at the first entry past a limit. */
async function listEntries(zip: ZipFile, path: string, limits: ZipLimits): Promise<Entry[]> {
  const { maxEntries = 10_000, maxUncompressedBytes = 512 * 1024 ** 2, maxRatio = 100 } = limits;
  if (zip.entryCount > maxEntries) throw zipBomb(path, `${zip.entryCount} entries (limit ${maxEntries})`);
  const entries: Entry[] = [];
  let total = 0;
  await yauzlCall(path, undefined, async () => {
    for await (const e of zip.eachEntry()) {
      const name = e.fileName;
      total += e.uncompressedSize;
      if (total > maxUncompressedBytes)
        throw zipBomb(path, `expands to more than ${formatBytes(maxUncompressedBytes)}`);
      const ratio = e.uncompressedSize / Math.max(1, e.compressedSize);
      if (e.uncompressedSize > 1024 ** 2 && ratio > maxRatio)
        throw zipBomb(path, `entry ${name} expands ${Math.round(ratio)}× (limit ${maxRatio}×)`);
      if (e.isEncrypted()) throw badInput(path, `archive entry ${name} is encrypted`);
      if (e.compressionMethod !== 0 && e.compressionMethod !== 8)
        throw badInput(path, `archive entry ${name} uses unsupported compression method ${e.compressionMethod}`);
      entries.push(e);
    }
  });
  return entries;
}

/** Runs a yauzl call, turning its errors into BAD_INPUT naming the file, the entry and the reason. */
async function yauzlCall<T>(path: string, entry: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PolyhopError) throw error;
    const message = (error as Error).message;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const on = entry === undefined ? '' : `entry ${entry} `;
    if (message.startsWith('too many bytes in the stream'))
      throw zipBomb(
        path,
        `${on}inflates beyond its declared ${formatBytes(Number(/expected (\d+)/.exec(message)?.[1]))}`,
      );
    if (UNSAFE_NAME.test(message))
      throw badInput(path, `archive entry has an unsafe name (${message})`, { cause: error });
    const why = message.startsWith('End of central directory record signature not found')
      ? 'no end-of-central-directory record'
      : message.startsWith('not enough bytes in the stream')
        ? `${on}size mismatch`
        : code.startsWith('Z_')
          ? `${on}does not inflate`
          : `${on}${message}`;
    throw badInput(path, `corrupt zip archive (${why.trim()})`, { cause: error });
  }
}
