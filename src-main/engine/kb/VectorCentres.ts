import type { RepositoryContext } from './RepositoryContext.js';
import { BinaryIndex } from './utils/BinaryIndex.js';
import type { VectorKind } from './types.js';

/**
 * A family's codes are recentred each time its count has doubled since the last centring, from
 * this count on. Below it the centre stays zero: a mean of fewer vectors is noisy, and the
 * prefilter then passes every code on anyway (k × oversample ≥ 80).
 */
const CENTRE_FROM = 64;
/** … and no more once centred at this count or more: the mean has settled, and a recode is O(n). */
const CENTRE_UNTIL = 65_536;
/**
 * Families of at most this many vectors are recentred at once by the write or search that finds
 * it due; larger ones are left to {@link VectorCentres.step} (the KB upgrade job), which stages the
 * new codes in batches. A whole recode reads every float vector twice and rewrites every code:
 * about 60 µs a vector (1M took about a minute), so about 0.25 s here at
 * most, once per doubling; a search never waits longer than that.
 */
export const RECENTRE_AT_ONCE_UNTIL = 4096;
/** Float vectors read per query when a family is recentred (and per step of a staged recentre). */
export const RECODE_PAGE_ROWS = 4096;

/** The two code columns of a vcode_* table: one is live, the other takes a staged recentre's codes. */
export type CodeColumn = 'code' | 'code_alt';

/** Where a family's staged recentre stands after a {@link VectorCentres.step}. */
export interface RecentreStep {
  /** True once the new centre is live (or none was due). */
  finished: boolean;
  /** Vectors read so far, over both passes (the mean, then the codes). */
  done: number;
  /** Both passes' vectors: twice the family's count. */
  total: number;
}

interface CentreState {
  /** The live codes' centre (null: zero) and the count it was computed at (0: never). */
  centre: Float32Array | null;
  centredAt: number;
  live: CodeColumn;
  /** While a staged recentre takes the mean: the float64 sum so far. */
  stagedSum: Float64Array | null;
  /** Once it writes codes: the new centre, whose codes go into the other column. */
  stagedCentre: Float32Array | null;
  stagedCount: number;
  stagedAfter: number;
}

/**
 * The centres of the vector families (vector_state, schema v15 and v17) and their recentring: at
 * once in one transaction for small families, or staged a batch per transaction for large ones
 * while searches go on with the live codes, switched over in one row update when all are written.
 *
 * @internal
 */
export class VectorCentres {
  readonly #context: RepositoryContext;
  /** Bumps a family's generation and drops its loaded index (it reloads around the new centre). */
  readonly #codesChanged: (kind: VectorKind) => void;

  constructor(context: RepositoryContext, codesChanged: (kind: VectorKind) => void) {
    this.#context = context;
    this.#codesChanged = codesChanged;
  }

  state(kind: VectorKind): CentreState {
    const row = this.#stmt(
      `SELECT centre, centred_at AS centredAt, code_column AS live, staged_sum AS stagedSum, staged_centre AS stagedCentre,
              staged_count AS stagedCount, staged_after AS stagedAfter FROM vector_state WHERE kind = ?`,
    ).get(kind) as {
      centre: Buffer | null;
      centredAt: number;
      live: CodeColumn;
      stagedSum: Buffer | null;
      stagedCentre: Buffer | null;
      stagedCount: number;
      stagedAfter: number;
    };
    return {
      ...row,
      centre: row.centre ? floatsOf(row.centre) : null,
      stagedSum: row.stagedSum ? new Float64Array(copyOf(row.stagedSum)) : null,
      stagedCentre: row.stagedCentre ? floatsOf(row.stagedCentre) : null,
    };
  }

  /**
   * The codes of `unit` to store: around the live centre, and for the other column around the
   * staged centre (the live code again when none is staged, a placeholder the staging rewrites).
   */
  codesOf(state: CentreState, unit: Float32Array): { live: Buffer; other: Buffer } {
    const live = bytesOf(BinaryIndex.encode(unit, state.centre));
    return { live, other: state.stagedCentre ? bytesOf(BinaryIndex.encode(unit, state.stagedCentre)) : live };
  }

  /** Whether `kind`'s count has doubled since it was centred (see {@link CENTRE_FROM}), and its count. */
  due(kind: VectorKind, centredAt = this.state(kind).centredAt): { due: boolean; count: number } {
    const count = this.#count(kind);
    return { due: centredAt < CENTRE_UNTIL && count >= CENTRE_FROM && count >= 2 * centredAt, count };
  }

  /** Whether `kind` has a staged recentre begun, or one due (what the upgrade job does). */
  pending(kind: VectorKind): boolean {
    const state = this.state(kind);
    return state.stagedSum !== null || state.stagedCentre !== null || this.due(kind, state.centredAt).due;
  }

  /** Recentres `kind` at once when due and small enough ({@link RECENTRE_AT_ONCE_UNTIL}); true if it did. */
  recentreIfSmall(kind: VectorKind, dimension: number, centredAt?: number): boolean {
    const { due, count } = this.due(kind, centredAt);
    if (!due || count > RECENTRE_AT_ONCE_UNTIL) return false;
    this.#recentre(kind, dimension);
    return true;
  }

  /**
   * Sets `kind`'s centre to the mean of its vectors and rewrites every live code around it, all in
   * one transaction (a savepoint inside the caller's), so an interrupted recode leaves the old
   * centre with the old codes. A staged recentre in progress is dropped: this centre is newer.
   */
  #recentre(kind: VectorKind, dimension: number): void {
    this.#context.transaction(() => {
      const sum = new Float64Array(dimension);
      let count = 0;
      this.#eachVector(kind, 0, Infinity, (_, vector) => {
        add(sum, vector);
        count++;
      });
      const centre = meanOf(sum, count);
      const putCode = this.#stmt(`UPDATE vcode_${kind} SET ${this.state(kind).live} = ? WHERE id = ?`);
      this.#eachVector(kind, 0, Infinity, (id, vector) => putCode.run(bytesOf(BinaryIndex.encode(vector, centre)), id));
      this.#stmt(
        `UPDATE vector_state SET centre = ?, centred_at = ?, staged_sum = NULL, staged_centre = NULL, staged_count = 0, staged_after = 0 WHERE kind = ?`,
      ).run(bytesOf(centre), count, kind);
      this.#codesChanged(kind);
    });
  }

  /**
   * One batch of `kind`'s staged recentre, in one transaction: begins it when due, adds up to
   * `rows` vectors to the mean, or writes their codes around the new centre into the column not
   * searched; after the last batch the new centre and its column become live at once. Vectors
   * written meanwhile get codes for both centres (see {@link codesOf}), so none is missed.
   */
  step(kind: VectorKind, dimension: number, rows = RECODE_PAGE_ROWS): RecentreStep {
    return this.#context.transaction(() => {
      let state = this.state(kind);
      const count = this.#count(kind);
      if (!state.stagedSum && !state.stagedCentre) {
        if (!this.due(kind, state.centredAt).due) return { finished: true, done: 2 * count, total: 2 * count };
        state = { ...state, stagedSum: new Float64Array(dimension), stagedCount: 0, stagedAfter: 0 };
      }
      const stage = this.#stmt(
        'UPDATE vector_state SET staged_sum = ?, staged_centre = ?, staged_count = ?, staged_after = ? WHERE kind = ?',
      );
      if (state.stagedSum) {
        const sum = state.stagedSum;
        let summed = state.stagedCount;
        const { read, last } = this.#eachVector(kind, state.stagedAfter, rows, (_, vector) => {
          add(sum, vector);
          summed++;
        });
        if (read < rows) stage.run(null, bytesOf(meanOf(sum, summed)), summed, 0, kind);
        else stage.run(Buffer.from(sum.buffer), null, summed, last, kind);
        return { finished: false, done: read < rows ? count : this.#countUpTo(kind, last), total: 2 * count };
      }
      const centre = state.stagedCentre as Float32Array;
      const other: CodeColumn = state.live === 'code' ? 'code_alt' : 'code';
      const putCode = this.#stmt(`UPDATE vcode_${kind} SET ${other} = ? WHERE id = ?`);
      const { read, last } = this.#eachVector(kind, state.stagedAfter, rows, (id, vector) =>
        putCode.run(bytesOf(BinaryIndex.encode(vector, centre)), id),
      );
      if (read === rows) {
        stage.run(null, bytesOf(centre), state.stagedCount, last, kind);
        return { finished: false, done: count + this.#countUpTo(kind, last), total: 2 * count };
      }
      this.#stmt(
        `UPDATE vector_state SET centre = staged_centre, centred_at = staged_count, code_column = ?,
                staged_sum = NULL, staged_centre = NULL, staged_count = 0, staged_after = 0 WHERE kind = ?`,
      ).run(other, kind);
      this.#codesChanged(kind);
      return { finished: true, done: 2 * count, total: 2 * count };
    });
  }

  /** Forgets `kind`'s centre and any staged recentre (its vectors were all deleted). */
  reset(kind: VectorKind): void {
    this.#stmt(
      `UPDATE vector_state SET centre = NULL, centred_at = 0, staged_sum = NULL, staged_centre = NULL, staged_count = 0, staged_after = 0 WHERE kind = ?`,
    ).run(kind);
  }

  #count(kind: VectorKind): number {
    return this.#stmt(`SELECT COUNT(*) FROM vcode_${kind}`).pluck().get() as number;
  }

  #countUpTo(kind: VectorKind, id: number): number {
    return this.#stmt(`SELECT COUNT(*) FROM vec_${kind} WHERE id <= ?`).pluck().get(id) as number;
  }

  /**
   * Calls `fn` with each stored float vector of `kind` after id `after`, up to `limit` of them, read
   * a page at a time (so `fn` may write); returns how many it read and the last id.
   */
  #eachVector(
    kind: VectorKind,
    after: number,
    limit: number,
    fn: (id: number, vector: Float32Array) => void,
  ): { read: number; last: number } {
    const pageRows = Math.min(limit, RECODE_PAGE_ROWS);
    const page = this.#stmt(`SELECT id, vector FROM vec_${kind} WHERE id > ? ORDER BY id LIMIT ?`);
    let read = 0;
    for (let last = after; ;) {
      const rows = page.all(last, Math.min(pageRows, limit - read)) as { id: number; vector: Buffer }[];
      for (const row of rows) fn(row.id, floatsOf(row.vector));
      read += rows.length;
      last = rows.at(-1)?.id ?? last;
      if (rows.length < pageRows || read >= limit) return { read, last };
    }
  }

  #stmt(sql: string) {
    return this.#context.statements.get(sql);
  }
}

function add(sum: Float64Array, vector: Float32Array): void {
  for (let i = 0; i < sum.length; i++) sum[i]! += vector[i] as number;
}

function meanOf(sum: Float64Array, count: number): Float32Array {
  return Float32Array.from(sum, (x) => x / Math.max(1, count));
}

function copyOf(blob: Buffer): ArrayBuffer {
  return blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength) as ArrayBuffer;
}

/** A float32 blob as floats (copied: a blob's bytes need not be 4-aligned). */
export function floatsOf(blob: Buffer): Float32Array {
  return new Float32Array(copyOf(blob));
}

export function bytesOf(array: Float32Array | Uint32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}
