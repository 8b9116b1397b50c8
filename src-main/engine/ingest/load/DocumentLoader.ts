import { Worker } from 'node:worker_threads';
import { asCancelled, throwIfAborted } from '../../base/abort.js';
import { BugIndicatingError, fromErrorData } from '../../base/errors.js';
import { badInput } from '../badInput.js';
import type { LoadedDocument } from '../types.js';
import type { LoaderReply, LoaderRequest, WorkerLoadOptions } from './documentLoaderProtocol.js';
import { DEFAULT_DOCX_XML_BYTES } from './loadDocx.js';

/** Limits on loading one document (settings: `documentLimits`). */
export interface DocumentLimits {
  /**
   * Memory one document may take while it loads, in MiB: the loader thread's own memory (its JS
   * heap, the buffers outside it such as decoded streams and images, and its OCR thread's wasm
   * heap) may grow by this much while the document loads, sampled every 100 ms; the thread's JS
   * heap is also capped at it. The first sample past it stops the document, so it gets at most one
   * interval's growth (or one synchronous allocation's) past the limit: `details.grownMb` says how
   * much. Memory taken elsewhere in the process is not counted. Default: 2048.
   */
  memoryMb?: number;
  /** Time one document may take to load, in seconds, from when the loader thread starts on it. Default: 300. */
  timeSeconds?: number;
}

export const DEFAULT_DOCUMENT_LIMITS: Required<DocumentLimits> = { memoryMb: 2048, timeSeconds: 300 };

/** The `documentLimits` setting: the loader thread's limits, and the largest DOCX text part in MiB. */
export interface DocumentLimitSettings extends Required<DocumentLimits> {
  docxXmlMb: number;
}

export const DEFAULT_DOCUMENT_LIMIT_SETTINGS: DocumentLimitSettings = {
  ...DEFAULT_DOCUMENT_LIMITS,
  docxXmlMb: DEFAULT_DOCX_XML_BYTES / 1024 ** 2,
};

export interface IsolatedLoadOptions extends WorkerLoadOptions {
  signal?: AbortSignal;
  /** Called when the loader thread starts on the document. */
  onStarted?: () => void;
}

/**
 * Loads documents in a worker thread, one at a time, so that a hostile file (a parser that runs
 * away in memory or time) can be stopped without the engine: past a limit the thread is
 * terminated and the document fails with BAD_INPUT naming the limit (`details.limit`); a
 * cancelled signal terminates it at once, mid-document. The next document gets a fresh thread.
 */
export class DocumentLoader {
  readonly #limits: Required<DocumentLimits>;
  #worker: Worker | null = null;
  #nextId = 1;
  #busy = false;

  constructor(limits: DocumentLimits = {}) {
    this.#limits = { ...DEFAULT_DOCUMENT_LIMITS, ...limits };
  }

  /** Whether a loader thread is alive (started on demand, ended by a limit, a cancel or dispose). */
  get hasThread(): boolean {
    return this.#worker !== null;
  }

  async load(path: string, options: IsolatedLoadOptions = {}): Promise<LoadedDocument> {
    const { signal, onStarted, ...data } = options;
    throwIfAborted(signal);
    if (this.#busy) throw new BugIndicatingError('DocumentLoader loads one document at a time');
    this.#busy = true;
    const worker = (this.#worker ??= this.#spawn());
    const id = this.#nextId++;
    const { memoryMb, timeSeconds } = this.#limits;
    let cleanup = () => {};
    try {
      return await new Promise<LoadedDocument>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const stop = (error: Error) => {
          this.#kill(worker);
          reject(error);
        };
        // `grownMb`: what the sample that tripped the limit read (the thread is stopped then), so a
        // caller or test can see how far past the limit a document got.
        const overMemory = (measure: 'heap' | 'thread', grownBytes?: number) =>
          badInput(
            path,
            `loading stopped: it needed more than ${memoryMb} MiB of memory (the per-document memory limit)`,
            {
              details: {
                limit: 'memory',
                measure,
                memoryMb,
                ...(grownBytes === undefined ? {} : { grownMb: Math.ceil(grownBytes / 1024 ** 2) }),
              },
            },
          );
        const onMessage = (reply: LoaderReply) => {
          if (reply.id !== id) return;
          if (reply.type === 'started') {
            onStarted?.();
            timer = setTimeout(
              () =>
                stop(
                  badInput(
                    path,
                    `loading stopped: it took longer than ${timeSeconds} s (the per-document time limit)`,
                    { details: { limit: 'time', timeSeconds } },
                  ),
                ),
              timeSeconds * 1000,
            );
          } else if (reply.type === 'overMemory') stop(overMemory('thread', reply.grownBytes));
          else if (reply.type === 'done') resolve(reply.document);
          else reject(fromErrorData(reply.error));
        };
        const onError = (error: Error & { code?: string }) => {
          this.#worker = null;
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? overMemory('heap')
              : badInput(path, `the document loader failed (${error.message})`, { cause: error }),
          );
        };
        const onExit = (code: number) => {
          this.#worker = null;
          reject(badInput(path, `the document loader stopped unexpectedly (exit code ${code})`));
        };
        const onAbort = () => stop(asCancelled(signal?.reason));
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        cleanup = () => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        // The limit itself, not a multiple of it: twice it let a PDF bomb reach ~4.4 GB resident
        // under the default 2,048 MiB (issue 25).
        const memoryGrowthBytes = memoryMb * 1024 ** 2;
        worker.postMessage({ id, path, options: data, memoryGrowthBytes } satisfies LoaderRequest);
      });
    } finally {
      cleanup();
      this.#busy = false;
    }
  }

  /** Ends the loader thread (a later load starts a new one). */
  async dispose(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #kill(worker: Worker): void {
    if (this.#worker === worker) this.#worker = null;
    void worker.terminate();
  }

  #spawn(): Worker {
    const resourceLimits = { maxOldGenerationSizeMb: this.#limits.memoryMb };
    // From source (tsx, vitest) the worker is TypeScript; in the built app it sits next to this module.
    const worker = import.meta.url.endsWith('.ts')
      ? new Worker(new URL('./tsWorker.js', import.meta.url), {
          workerData: { entry: new URL('./documentWorker.ts', import.meta.url).href },
          resourceLimits,
        })
      : new Worker(new URL('./documentWorker.js', import.meta.url), { resourceLimits });
    // A thread left by a caller that never disposes must not keep the process alive.
    worker.unref();
    // Between documents nobody listens; a thread that dies then is replaced on the next load.
    worker.on('error', () => {
      if (this.#worker === worker) this.#worker = null;
    });
    return worker;
  }
}
