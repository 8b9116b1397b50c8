import { asCancelled, throwIfAborted } from '../base/abort.js';

/**
 * Hands a fixed set of items (a context's sequences) to concurrent callers, one caller per item,
 * first come first served. A caller waiting for an item can be aborted.
 *
 * ```ts
 * const slot = await pool.acquire(signal);
 * try { ... } finally { pool.release(slot); }
 * ```
 */
export class SequencePool<T> {
  readonly #free: T[];
  readonly #waiters: { resolve: (item: T) => void }[] = [];

  constructor(items: readonly T[]) {
    this.#free = [...items];
  }

  /** Items free right now. */
  get available(): number {
    return this.#free.length;
  }

  acquire(signal?: AbortSignal): Promise<T> {
    throwIfAborted(signal);
    const item = this.#free.pop();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        resolve: (value: T) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(asCancelled(signal?.reason));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  release(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(item);
    else this.#free.push(item);
  }
}
