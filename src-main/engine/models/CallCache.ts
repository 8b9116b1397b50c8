/** Where finished LLM calls are kept; the KB's SQLite implements it so a resumed job repeats no call. */
export interface CallCacheStore {
  get(key: string): string | undefined;
  put(
    key: string,
    value: string,
    meta: { promptName: string; promptVersion: string; promptTokens: number; completionTokens: number },
  ): void;
}

/** A CallCacheStore in memory, for runs without a KB (the Models screen's "try it", tests). */
export class MemoryCallCacheStore implements CallCacheStore {
  readonly #entries = new Map<string, string>();

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): string | undefined {
    return this.#entries.get(key);
  }

  put(key: string, value: string): void {
    this.#entries.set(key, value);
  }
}
