import { Worker } from 'node:worker_threads';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One worker thread holding an Oxigraph store; every call rejects if the thread dies. */
export class StoreWorker {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #dead: Error | null = null;

  constructor() {
    this.#worker = new Worker(new URL('./rdfWorker.js', import.meta.url));
    this.#worker.on('message', (msg: { id: number; ok: boolean; value?: unknown; message?: string }) => {
      const pending = this.#pending.get(msg.id);
      this.#pending.delete(msg.id);
      if (msg.ok) pending?.resolve(msg.value);
      else pending?.reject(new Error(msg.message));
    });
    const die = (error: Error): void => {
      this.#dead ??= error;
      for (const p of this.#pending.values()) p.reject(this.#dead);
      this.#pending.clear();
    };
    this.#worker.on('error', die);
    this.#worker.on('exit', (code) => die(new Error(`RDF worker exited (code ${code})`)));
  }

  call<T>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#worker.postMessage({ id, op, ...payload });
    });
  }

  async terminate(): Promise<void> {
    this.#dead ??= new Error('RDF worker terminated');
    await this.#worker.terminate();
  }
}
