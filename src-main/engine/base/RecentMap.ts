/**
 * A map that keeps its `capacity` most recently used entries (a hit counts as a use), for caches
 * whose keys keep coming: e.g. `const grammars = new RecentMap<string, Grammar>(64)`.
 */
export class RecentMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`RecentMap: capacity ${capacity} is not at least 1`);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    // A Map iterates in insertion order: re-inserting makes the entry the newest.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.capacity) break;
      this.#entries.delete(oldest);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }
}
