import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { PolyhopError } from '../base/errors.js';

/**
 * Walks a GGUF file's header, metadata and tensor infos without materialising them, checking
 * every count and length against the bytes left in the file. node-llama-cpp's reader trusts
 * those numbers (a forged string length of 3e9 makes it allocate 3 GB), and llama.cpp would
 * read them natively, so anything that reaches either must pass this first.
 *
 * Returns where the tensor-info section ends, for the caller's truncation check.
 */
export interface GgufPreflight {
  version: number;
  tensorCount: number;
  metadataCount: number;
  fileSize: number;
  /** Offset just past the tensor infos (before alignment padding). */
  infoEnd: number;
}

/** Bounds that no real model comes near; they keep a forged header from costing time. */
const MAX_TENSORS = 1 << 20;
const MAX_METADATA = 1 << 16;
const MAX_STRING = 64 << 20;
const MAX_DIMS = 8;
const MAX_ARRAY_DEPTH = 4;

/** Size of each scalar metadata type; 8 = string and 9 = array are handled apart. */
const SCALAR_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;
const CHUNK = 1 << 20;

export async function ggufPreflight(path: string): Promise<GgufPreflight> {
  const name = basename(path);
  const bad = (reason: string): PolyhopError =>
    new PolyhopError('BAD_INPUT', `${name} is not a usable GGUF model: ${reason}`, { details: { file: path, reason } });
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new PolyhopError('NOT_FOUND', `Cannot open model file ${path}`, { details: { file: path }, cause: error });
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw bad('it is not a regular file');
    const fileSize = stats.size;
    const r = new BoundedReader(file, fileSize, bad);
    if (fileSize < 24) throw bad(`file is only ${fileSize} bytes`);
    const magic = (await r.bytes(4)).toString('latin1');
    if (magic !== 'GGUF') throw bad('it does not start with the GGUF magic bytes');
    const version = await r.u32();
    if (version !== 2 && version !== 3)
      throw bad(`GGUF version ${version} is not supported (2 or 3 expected; a big-endian file also reads this way)`);
    const tensorCount = await r.u64();
    const metadataCount = await r.u64();
    if (tensorCount > MAX_TENSORS || tensorCount * 24 > fileSize) throw bad(`header claims ${tensorCount} tensors`);
    if (metadataCount > MAX_METADATA || metadataCount * 13 > fileSize)
      throw bad(`header claims ${metadataCount} metadata entries`);

    for (let i = 0; i < metadataCount; i++) {
      await r.string('metadata key');
      await r.value(await r.u32(), 0);
    }
    for (let i = 0; i < tensorCount; i++) {
      await r.string('tensor name');
      const dims = await r.u32();
      if (dims === 0 || dims > MAX_DIMS) throw bad(`tensor ${i} has ${dims} dimensions`);
      r.skip(dims * 8 + 4 + 8); // dims, ggml type, data offset
    }
    return { version, tensorCount, metadataCount, fileSize, infoEnd: r.position };
  } finally {
    await file.close();
  }
}

class BoundedReader {
  position = 0;
  #buf = Buffer.alloc(0);
  #bufStart = 0;
  readonly #file: FileHandle;
  readonly #size: number;
  readonly #bad: (reason: string) => PolyhopError;

  constructor(file: FileHandle, size: number, bad: (reason: string) => PolyhopError) {
    this.#file = file;
    this.#size = size;
    this.#bad = bad;
  }

  #check(n: number, what: string): void {
    if (!Number.isSafeInteger(n) || n < 0 || this.position + n > this.#size) {
      throw this.#bad(
        `${what} at byte ${this.position} needs ${n} bytes but the file ends at ${this.#size} (truncated or corrupt)`,
      );
    }
  }

  async bytes(n: number): Promise<Buffer> {
    this.#check(n, 'a value');
    const offset = this.position - this.#bufStart;
    if (offset < 0 || offset + n > this.#buf.length) {
      const length = Math.min(Math.max(n, CHUNK), this.#size - this.position);
      this.#buf = Buffer.alloc(length);
      await this.#file.read(this.#buf, 0, length, this.position);
      this.#bufStart = this.position;
    }
    const start = this.position - this.#bufStart;
    this.position += n;
    return this.#buf.subarray(start, start + n);
  }

  skip(n: number): void {
    this.#check(n, 'a value');
    this.position += n;
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0);
  }

  /** A u64 as a number; values beyond 2^53 are reported as Infinity so bound checks reject them. */
  async u64(): Promise<number> {
    const v = (await this.bytes(8)).readBigUInt64LE(0);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(v);
  }

  async string(what: string): Promise<void> {
    const length = await this.u64();
    if (length > MAX_STRING) throw this.#bad(`${what} at byte ${this.position - 8} claims ${length} bytes`);
    this.skip(length);
  }

  async value(type: number, depth: number): Promise<void> {
    const scalar = SCALAR_SIZE[type];
    if (scalar !== undefined) return this.skip(scalar);
    if (type === STRING) return this.string('metadata string');
    if (type !== ARRAY || depth >= MAX_ARRAY_DEPTH)
      throw this.#bad(`unknown metadata value type ${type} at byte ${this.position - 4}`);
    const itemType = await this.u32();
    const count = await this.u64();
    const itemSize = SCALAR_SIZE[itemType];
    if (itemSize !== undefined) return this.skip(count * itemSize);
    // Strings and nested arrays take at least 8 bytes each: reject impossible counts before looping.
    this.#check(count * 8, `an array of ${count} items`);
    for (let i = 0; i < count; i++) await this.value(itemType, depth + 1);
  }
}
