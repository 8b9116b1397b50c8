import { BugIndicatingError } from '../../base/errors.js';
import { HAMMING_SCAN_WASM } from './hammingScanWasm.js';

/**
 * In-memory sign-bit codes of one vector family, scanned by Hamming distance to pick rerank
 * candidates. One bit per dimension (1 when the component is above the family's {@link centre}),
 * packed little-endian in 32-bit words. Why not sqlite-vec's bit[] vec0 column: measured at 200k×384 here, its KNN took 21 ms at
 * k=10 and 324 ms at k=400 (its top-k merge grows with k).
 *
 * The scan has two stages. The first 128 bits of every code are compared in WebAssembly SIMD
 * (hammingScan.wat: one 128-bit load, xor and popcount per code), and in large sets only the best
 * 1% (at least 16× the wanted count) go on; the remaining bits of those are then added in
 * JavaScript. The first 128 bits live back to back in the index's own wasm memory, apart from the
 * rest, because that scan is bound by memory traffic: at 2M codes × 256 bits it took 24 ms in
 * unrolled JavaScript and 9 ms in wasm reading whole interleaved codes. Several queries
 * ({@link candidatesOfEach}) are scanned 4 at a time, their byte counts summed in shared vector
 * steps: measured at 2M codes, 3 queries took 18 ms against 29 ms one by one.
 *
 * Given the float queries ({@link Refinement}), the second stage ranks by each one's dot product
 * with the ±1 codes instead of Hamming distance (a table lookup per code byte), and skips the ids a
 * filter excludes, so a filter does not eat the candidates; the first stage then keeps 3%.
 *
 * @internal
 */
export class BinaryIndex {
  readonly words: number;
  /**
   * The vector the codes are signs around (sign(v − centre)), as stored in vector_state; null for
   * zero (plain sign bits). Queries must be encoded with it ({@link encodeQuery}).
   */
  readonly centre: Float32Array | null;
  /** Generation of the SQLite rows this copy reflects (see KnowledgeBase's vector_state). */
  generation: number;
  readonly #restWords: number;
  readonly #memory: WebAssembly.Memory;
  readonly #scan: ScanExports;
  #ids = new Float64Array(1024);
  /** First {@link PREFIX_WORDS} words of each slot's code, in #memory (renewed when it grows). */
  #prefixes!: Uint32Array;
  /** The other words of each slot's code. */
  #rest: Uint32Array;
  #size = 0;
  /** Slot of each id; built on the first write after a bulk {@link append}, which searches never need. */
  #slotOf: Map<number, number> | null = new Map();

  constructor(dimension: number, generation: number, centre: Float32Array | null = null) {
    this.words = Math.ceil(dimension / 32);
    this.generation = generation;
    this.centre = centre;
    this.#restWords = Math.max(0, this.words - PREFIX_WORDS);
    this.#memory = new WebAssembly.Memory({ initial: 1 });
    this.#scan = new WebAssembly.Instance(scanModule(), { env: { memory: this.#memory } })
      .exports as unknown as ScanExports;
    this.#rest = new Uint32Array(this.#ids.length * this.#restWords);
    this.#reserve(this.#ids.length);
  }

  get size(): number {
    return this.#size;
  }

  /** Sign bits of `vector − centre` (of `vector` when no centre is given). */
  static encode(vector: Float32Array, centre: Float32Array | null = null): Uint32Array {
    const code = new Uint32Array(Math.ceil(vector.length / 32));
    for (let i = 0; i < vector.length; i++) {
      const x = (vector[i] as number) - (centre ? (centre[i] as number) : 0);
      if (x > 0) code[i >>> 5]! |= 1 << (i & 31);
    }
    return code;
  }

  /** A query's code, around this index's {@link centre}. */
  encodeQuery(vector: Float32Array): Uint32Array {
    return BinaryIndex.encode(vector, this.centre);
  }

  /** Stores the code of `id` given as the bytes of {@link encode}'s result (as kept in SQLite). */
  set(id: number, code: Uint8Array): void {
    const slotOf = this.#slots();
    let slot = slotOf.get(id);
    if (slot === undefined) {
      slot = this.#size++;
      if (slot >= this.#ids.length) this.#grow();
      slotOf.set(id, slot);
      this.#ids[slot] = id;
    }
    this.#write(slot, wordsOf(code, this.words), 0);
  }

  /**
   * Adds the codes of `ids`, none of them in the index yet, from `codes`: their bytes back to back
   * in the order of `ids` (a bulk load).
   */
  append(ids: readonly number[], codes: Uint8Array): void {
    if (codes.length !== ids.length * this.words * 4) {
      throw new BugIndicatingError(
        `BinaryIndex.append: ${ids.length} ids need ${ids.length * this.words * 4} code bytes, got ${codes.length}`,
      );
    }
    while (this.#size + ids.length > this.#ids.length) this.#grow();
    const words = wordsOf(codes, ids.length * this.words);
    for (let i = 0; i < ids.length; i++) this.#write(this.#size + i, words, i * this.words);
    this.#ids.set(ids, this.#size);
    this.#size += ids.length;
    this.#slotOf = null;
  }

  delete(id: number): void {
    const slotOf = this.#slots();
    const slot = slotOf.get(id);
    if (slot === undefined) return;
    const last = --this.#size;
    if (slot !== last) {
      const lastId = this.#ids[last] as number;
      this.#ids[slot] = lastId;
      this.#prefixes.copyWithin(slot * PREFIX_WORDS, last * PREFIX_WORDS, (last + 1) * PREFIX_WORDS);
      this.#rest.copyWithin(slot * this.#restWords, last * this.#restWords, (last + 1) * this.#restWords);
      slotOf.set(lastId, slot);
    }
    slotOf.delete(id);
  }

  /** Ids of (up to) the `count` codes nearest to `query` by Hamming distance. */
  candidates(query: Uint32Array, count: number): number[] {
    return this.candidatesOfEach([query], count)[0] as number[];
  }

  /**
   * {@link candidates} of each query, the same ids in the same order, with the codes' first words
   * read once per {@link BATCH_QUERIES} queries: that scan is bound by reading every code.
   */
  candidatesOfEach(queries: readonly Uint32Array[], count: number, refine?: Refinement): number[][] {
    const n = this.#size;
    const exclude = refine?.exclude;
    if (count >= n && !exclude) return queries.map(() => Array.from(this.#ids.subarray(0, n)));
    // A filter cuts candidates: the first stage keeps more, by the share of codes that pass it.
    const passing = exclude ? Math.max(1, n - Math.min(exclude.size, n)) / n : 1;
    const found: number[][] = [];
    for (let first = 0; first < queries.length; first += BATCH_QUERIES) {
      const batch = queries.slice(first, first + BATCH_QUERIES);
      const prefixes = this.#prefixScan(batch);
      batch.forEach((query, i) => {
        const prefix = prefixes[i] as Distances;
        const floats = refine?.floats[first + i];
        let slots: Int32Array;
        if (this.#restWords === 0 && !floats) slots = this.#collect(prefix, count).slots;
        else {
          const fraction = floats ? FIRST_STAGE_FRACTION_REFINED : FIRST_STAGE_FRACTION;
          const keep = n > FIRST_STAGE_MIN ? Math.min(n, Math.ceil(Math.max(n * fraction, count * 16) / passing)) : n;
          const among = keep < n ? this.#collect(prefix, keep) : null;
          const distances = floats
            ? this.#asymmetricDistances(floats, among?.slots ?? null, exclude)
            : this.#fullDistances(query, among?.dist ?? prefix.dist, among?.slots ?? null);
          slots = nearest(distances, count, among?.slots ?? null);
        }
        found.push(Array.from(slots, (slot) => this.#ids[slot] as number));
      });
    }
    return found;
  }

  /**
   * The float query's dot product with each code read as ±1 per dimension (asymmetric: only the
   * stored side is one bit), for the slots `among` (or all), as distances quantised to
   * {@link ASYMMETRIC_LEVELS} levels, nearest 0; `exclude`d ids get a distance past every level.
   * Far closer to the cosine than Hamming between two codes: on the qa bench's chunk vectors
   * (10k entities) Hamming candidates reached recall@10 0.85. The query is not centred here: q·(v −
   * centre) differs from q·v by q·centre, the same for every code, so it ranks as the cosine does. One table of 256 partial sums per
   * code byte makes it a lookup per byte.
   */
  #asymmetricDistances(query: Float32Array, among: Int32Array | null, exclude?: ReadonlySet<number>): Distances {
    const bytes = this.words * 4;
    const table = new Float32Array(bytes * 256);
    for (let b = 0; b < bytes; b++) {
      const base = b * 256;
      for (let v = 1; v < 256; v++) {
        const low = 31 - Math.clz32(v & -v);
        const dim = b * 8 + low;
        table[base + v] = table[base + (v & (v - 1))]! + (dim < query.length ? (query[dim] as number) : 0);
      }
    }
    const m = among ? among.length : this.#size;
    const scores = new Float64Array(m);
    const prefixes = this.#prefixes;
    const rest = this.#rest;
    const rw = this.#restWords;
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = 0; j < m; j++) {
      const slot = among ? (among[j] as number) : j;
      if (exclude?.has(this.#ids[slot] as number)) {
        scores[j] = NaN;
        continue;
      }
      let s = 0;
      for (let w = 0; w < this.words; w++) {
        const word = (
          w < PREFIX_WORDS ? prefixes[slot * PREFIX_WORDS + w] : rest[slot * rw + w - PREFIX_WORDS]
        ) as number;
        const t = w * 1024;
        s +=
          (table[t + (word & 255)] as number) +
          (table[t + 256 + ((word >>> 8) & 255)] as number) +
          (table[t + 512 + ((word >>> 16) & 255)] as number) +
          (table[t + 768 + (word >>> 24)] as number);
      }
      scores[j] = s;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    const dist = new Uint16Array(m);
    const hist = new Uint32Array(ASYMMETRIC_LEVELS);
    const scale = hi > lo ? (ASYMMETRIC_LEVELS - 1) / (hi - lo) : 0;
    for (let j = 0; j < m; j++) {
      const s = scores[j] as number;
      if (Number.isNaN(s)) {
        dist[j] = ASYMMETRIC_LEVELS;
        continue;
      }
      const d = Math.min(ASYMMETRIC_LEVELS - 1, Math.floor((hi - s) * scale));
      dist[j] = d;
      hist[d]!++;
    }
    return { dist, hist };
  }

  /** Distances over the first {@link PREFIX_WORDS} words of every code, one per query (views into #memory, valid until the next scan). */
  #prefixScan(queries: readonly Uint32Array[]): Distances[] {
    const n = this.#size;
    const buffer = this.#memory.buffer;
    const packed = new Uint32Array(buffer, QUERY_OFFSET, BATCH_QUERIES * PREFIX_WORDS).fill(0);
    queries.forEach((query, i) => packed.set(query.subarray(0, PREFIX_WORDS), i * PREFIX_WORDS));
    new Uint32Array(buffer, HIST_OFFSET, BATCH_QUERIES * HIST_COUNTERS).fill(0);
    const { dist, stride } = this.#scratch();
    if (queries.length === 1)
      this.#scan.prefixDistances(PREFIXES_OFFSET, n, QUERY_OFFSET, 1, dist, stride, HIST_OFFSET);
    else {
      // The 4-query scan, its unused slots given the last query (their distances are not read).
      for (let i = queries.length; i < BATCH_QUERIES; i++)
        packed.copyWithin(i * PREFIX_WORDS, (queries.length - 1) * PREFIX_WORDS, queries.length * PREFIX_WORDS);
      this.#scan.prefixDistances4(PREFIXES_OFFSET, n, QUERY_OFFSET, dist, stride, HIST_OFFSET);
    }
    return queries.map((_, i) => {
      // collect reads whole blocks of 8 (the stride, a multiple of 16 bytes, has room).
      new Uint16Array(buffer, dist + i * stride + n * 2, (8 - (n % 8)) % 8).fill(0xffff);
      return {
        dist: new Uint16Array(buffer, dist + i * stride, n),
        hist: new Uint32Array(buffer, HIST_OFFSET + i * HIST_COUNTERS * 4, HIST_COUNTERS),
      };
    });
  }

  /** Slots of the `count` smallest prefix distances, in slot order, with those distances (views into #memory, valid until the next collect). */
  #collect(prefix: Distances, count: number): Collected {
    const { threshold, ties } = cutoff(prefix.hist, count);
    const { out, outDist } = this.#scratch();
    const written = this.#scan.collect(prefix.dist.byteOffset, prefix.dist.length, threshold, ties, out, outDist);
    return {
      slots: new Int32Array(this.#memory.buffer, out, written),
      dist: new Uint16Array(this.#memory.buffer, outDist, written),
    };
  }

  /** Full distances of the slots `among` (or of all): their prefix distance (`prefixDist`, in the same order) plus the rest's. */
  #fullDistances(query: Uint32Array, prefixDist: Uint16Array, among: Int32Array | null): Distances {
    const m = among ? among.length : this.#size;
    const rest = this.#rest;
    const rw = this.#restWords;
    const q = query.subarray(PREFIX_WORDS);
    const dist = new Uint16Array(m);
    const hist = new Uint32Array(this.words * 32 + 1);
    for (let j = 0; j < m; j++) {
      const slot = among ? (among[j] as number) : j;
      let d = prefixDist[j] as number;
      for (let w = 0, base = slot * rw; w < rw; w++) d += popcount((rest[base + w] as number) ^ (q[w] as number));
      dist[j] = d;
      hist[d]!++;
    }
    return { dist, hist };
  }

  /** Copies one code (its `this.words` words at `from` in `words`) into `slot`. */
  #write(slot: number, words: Uint32Array, from: number): void {
    const prefixes = this.#prefixes;
    const base = slot * PREFIX_WORDS;
    for (let w = 0; w < PREFIX_WORDS; w++) prefixes[base + w] = w < this.words ? (words[from + w] as number) : 0;
    if (this.#restWords > 0)
      this.#rest.set(words.subarray(from + PREFIX_WORDS, from + this.words), slot * this.#restWords);
  }

  #slots(): Map<number, number> {
    if (!this.#slotOf) {
      this.#slotOf = new Map();
      for (let slot = 0; slot < this.#size; slot++) this.#slotOf.set(this.#ids[slot] as number, slot);
    }
    return this.#slotOf;
  }

  #grow(): void {
    const capacity = this.#ids.length * 2;
    const ids = new Float64Array(capacity);
    ids.set(this.#ids);
    this.#ids = ids;
    const rest = new Uint32Array(capacity * this.#restWords);
    rest.set(this.#rest);
    this.#rest = rest;
    this.#reserve(capacity);
  }

  /**
   * Where a scan writes its distances (u16, {@link BATCH_QUERIES} arrays `stride` bytes apart), and
   * collect the slots (i32) and their distances (u16): after every slot's prefix.
   */
  #scratch(): { dist: number; stride: number; out: number; outDist: number } {
    const capacity = this.#ids.length;
    const stride = capacity * 2;
    const dist = PREFIXES_OFFSET + capacity * PREFIX_WORDS * 4;
    const out = dist + BATCH_QUERIES * stride;
    return { dist, stride, out, outDist: out + capacity * 4 };
  }

  /** Grows #memory to hold `capacity` prefixes and their scratch; the prefixes stay where they are. */
  #reserve(capacity: number): void {
    const needed = PREFIXES_OFFSET + capacity * (PREFIX_WORDS * 4 + BATCH_QUERIES * 2 + 4 + 2);
    const have = this.#memory.buffer.byteLength;
    if (needed > have) this.#memory.grow(Math.ceil((needed - have) / WASM_PAGE_BYTES));
    this.#prefixes = new Uint32Array(this.#memory.buffer, PREFIXES_OFFSET, capacity * PREFIX_WORDS);
  }
}

/** Words of the first scan stage (128 bits: one SIMD register). */
const PREFIX_WORDS = 4;
/** Sets up to this size go through the second stage whole. */
const FIRST_STAGE_MIN = 20_000;
/** Share of a large set the first stage passes on to full Hamming distances. */
const FIRST_STAGE_FRACTION = 0.01;
/** … and to asymmetric scoring, which is sharper, so worth more candidates (it costs ~1 ms per 10k codes). */
const FIRST_STAGE_FRACTION_REFINED = 0.03;
/** Levels asymmetric scores are quantised to for the counting selection. */
const ASYMMETRIC_LEVELS = 4096;
/** Queries scanned together (each needs its own distances: 2 bytes per slot). */
const BATCH_QUERIES = 4;
/** Counters of a prefix-distance histogram (distances 0..128). */
const HIST_COUNTERS = PREFIX_WORDS * 32 + 1;
/** Layout of an index's wasm memory: the queries, their histograms, the prefixes, then scratch. */
const QUERY_OFFSET = 0;
const HIST_OFFSET = QUERY_OFFSET + BATCH_QUERIES * PREFIX_WORDS * 4;
const PREFIXES_OFFSET = 4096;
const WASM_PAGE_BYTES = 65_536;

interface ScanExports {
  prefixDistances(
    prefixes: number,
    n: number,
    queries: number,
    m: number,
    dist: number,
    stride: number,
    hist: number,
  ): void;
  prefixDistances4(prefixes: number, n: number, queries: number, dist: number, stride: number, hist: number): void;
  collect(dist: number, n: number, threshold: number, ties: number, out: number, outDist: number): number;
}

let compiled: WebAssembly.Module | undefined;
/** The scan's module, compiled once per process (each index instantiates it over its own memory). */
function scanModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(Buffer.from(HAMMING_SCAN_WASM, 'base64'));
  return compiled;
}

/** What {@link BinaryIndex.candidatesOfEach} ranks by instead of Hamming distance, when given. */
export interface Refinement {
  /** Each query as a unit float vector (same order as the codes): candidates are ranked by its dot product with the ±1 codes. */
  floats: readonly Float32Array[];
  /** Ids never returned (a filter applied inside the scan, so it does not eat the candidates). */
  exclude?: ReadonlySet<number>;
}

/** Slots a collect kept, with their prefix distances. */
interface Collected {
  slots: Int32Array;
  dist: Uint16Array;
}

/** Hamming distances of scanned codes, with their histogram (for counting selection). */
interface Distances {
  dist: Uint16Array;
  hist: Uint32Array;
}

/** The smallest distance that admits `count` codes, and how many codes at it fill up to `count`. */
function cutoff(hist: Uint32Array, count: number): { threshold: number; ties: number } {
  let below = 0;
  for (let threshold = 0; threshold < hist.length; threshold++) {
    const at = hist[threshold] as number;
    if (below + at >= count) return { threshold, ties: count - below };
    below += at;
  }
  return { threshold: hist.length, ties: 0 };
}

/** Slots of the `count` smallest distances; `among` maps scan positions to slots (identity when null). */
function nearest({ dist, hist }: Distances, count: number, among: Int32Array | null): Int32Array {
  const { threshold, ties: admitted } = cutoff(hist, count);
  let ties = admitted;
  const out = new Int32Array(Math.min(count, dist.length));
  let filled = 0;
  for (let j = 0; j < dist.length; j++) {
    const d = dist[j] as number;
    if (d < threshold || (d === threshold && ties-- > 0)) out[filled++] = among ? (among[j] as number) : j;
  }
  return out.subarray(0, filled);
}

/** The first `length` little-endian 32-bit words of `bytes` (a view when aligned, else a copy). */
function wordsOf(bytes: Uint8Array, length: number): Uint32Array {
  return bytes.byteOffset % 4 === 0
    ? new Uint32Array(bytes.buffer, bytes.byteOffset, length)
    : new Uint32Array(bytes.slice(0, length * 4).buffer);
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
