/** Where finished LLM calls are kept; the KB's SQLite implements it so a resumed job repeats no call. */
export interface CallCacheStore {
  get(key: string): string | undefined;
  put(key: string, value: string, meta: { promptName: string; promptVersion: string; promptTokens: number; completionTokens: number }): void;
}
